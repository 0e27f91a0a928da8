/**
 * The bench's cost section: the gateway's own modules timed in-process, called the way a request
 * calls them, on the bench's gateway config. No network and no upstream, so the numbers are the
 * modules' CPU per request, free of the load generator and of the other processes.
 */

import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { PlanLimits } from "../canonical/plans.ts";
import { buildResponseCacheKey } from "../cache/build-response-cache-key.ts";
import { createResponseCache, type StoredEntry } from "../cache/create-response-cache.ts";
import { createShardedLru } from "../cache/create-sharded-lru.ts";
import type { CanonicalResponse } from "../canonical/response.ts";
import { loadConfig } from "../config/load-config.ts";
import type { Config } from "../config/schema.ts";
import { CLIENT_FORMATS } from "../formats/client-formats.ts";
import { createLimiter } from "../limits/create-limiter.ts";
import type { LimitSubject } from "../limits/limiter.ts";
import { createMetrics } from "../ops/create-metrics.ts";
import { createRequestLog } from "../ops/create-request-log.ts";
import type { RequestRecord } from "../canonical/request-record.ts";
import { createMemoryPinStore } from "../routing/create-memory-pin-store.ts";
import { createRouting, type Routing } from "../routing/create-routing.ts";
import { decideRoute } from "../routing/decide-route.ts";
import type { PinStore } from "../routing/pin-store.ts";
import { readSessionId } from "../routing/read-session-id.ts";
import { buildBenchConfig, SAME_FORMAT_TIER } from "./build-bench-config.ts";
import { decodeRawAnswer } from "../pipeline/decode-raw-answer.ts";
import { measureCallCost, type CallCostOptions } from "./measure-call-cost.ts";
import { FORMATS, type BenchFormat } from "./scenarios.ts";

/** The issues' targets for the modules' own cost per request, µs at p50. */
export const TARGET_ROUTING_P50_US = 50;
export const TARGET_LIMITS_CACHE_P50_US = 30;

export interface CostRow {
  readonly id: string;
  readonly label: string;
  readonly p50Us: number;
  readonly p99Us: number;
  readonly calls: number;
  /** The p50 target, when the issues set one for this row. */
  readonly targetP50Us: number | undefined;
  /** What the row's calls saw (e.g. the decision's source), so a reader can tell the path taken. */
  readonly note: string;
  readonly sink: number;
}

export const DEFAULT_COST_OPTIONS: CallCostOptions = { warmup: 5_000, iterations: 20_000, rounds: 5 };

const ACCOUNT = "acct_bench_costs";
const ENTERPRISE: PlanLimits = { requestsPerMinute: null, concurrentRequests: null, tokensPerMonth: null };
// Every limit checked on each call; the rpm cap is high enough that a tight loop is never refused.
const CAPPED: PlanLimits = { requestsPerMinute: 1_000_000, concurrentRequests: 16, tokensPerMonth: 1_000_000_000_000 };

/** The gateway's Config for the bench's config file, read the way the gateway reads it. */
function loadBenchConfig(): Config {
  const dir = mkdtempSync(join(tmpdir(), "routelane-bench-costs-"));
  try {
    const path = join(dir, "routelane.bench.json");
    writeFileSync(path, JSON.stringify(buildBenchConfig("http://127.0.0.1:9")));
    return loadConfig({ ROUTELANE_CONFIG: path, ROUTELANE_DATA_DIR: join(dir, "data") });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** A first turn of a new conversation: the pin store never has one, so only the decision cache is warm. */
const NO_PINS: PinStore = { kind: "memory", get: () => null, set: () => {}, close: async () => {} };

// The size of a simulated answer with thinking: what the cache stores and parses on a hit.
const ANSWER: CanonicalResponse = {
  id: "msg_bench_0001",
  model: "sim-all",
  content: [
    { type: "thinking", text: "The user wants a short TypeBox example. ".repeat(8), signature: "c2lnbmF0dXJl".repeat(16) },
    { type: "text", text: "Compile the schema once with TypeCompiler and check the parsed JSON at start-up. ".repeat(10) },
  ],
  stopReason: { unified: "end_turn", raw: "end_turn" },
  usage: { inputTokens: 61, outputTokens: 256, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 64 },
};

function benchRequest(format: BenchFormat): { body: Record<string, unknown>; headers: Headers } {
  return { body: FORMATS[format].body(SAME_FORMAT_TIER, false), headers: new Headers({ "content-type": "application/json" }) };
}

/** Decode + decide (+ pin, as the pipeline does once the answer is committed). */
function routingCall(routing: Routing, format: BenchFormat, pin: boolean): () => Promise<number> {
  const { body, headers } = benchRequest(format);
  const principal = { accountId: ACCOUNT };
  return async () => {
    const request = CLIENT_FORMATS[format].decodeRequest(body).value;
    const decision = await decideRoute(routing, { principal, tier: SAME_FORMAT_TIER, request, format, sessionId: readSessionId(headers, request) });
    if (pin) await decision.recordOutcome(decision.modelName);
    return decision.modelName.length + (decision.cached ? 1 : 0);
  };
}

async function describeDecision(routing: Routing, format: BenchFormat): Promise<string> {
  const { body, headers } = benchRequest(format);
  const request = CLIENT_FORMATS[format].decodeRequest(body).value;
  const d = await decideRoute(routing, { principal: { accountId: ACCOUNT }, tier: SAME_FORMAT_TIER, request, format, sessionId: readSessionId(headers, request) });
  return `source ${d.source}, decision cache ${d.cached ? "hit" : "miss"}`;
}

async function routingRows(config: Config, options: CallCostOptions): Promise<CostRow[]> {
  const rows: CostRow[] = [];
  const pinned = createRouting({ config, pins: createMemoryPinStore(config.routing.conversations.maxPins) });
  const firstTurn = createRouting({ config, pins: NO_PINS });
  for (const format of ["messages", "chat", "responses"] as const) {
    for (const [routing, pin, kind] of [
      [pinned, true, "pinned conversation, decide + pin"],
      [firstTurn, false, "new conversation, decide"],
    ] as const) {
      const cost = await measureCallCost(routingCall(routing, format, pin), options);
      rows.push({
        id: `routing/${format}/${pin ? "pinned" : "first-turn"}`,
        label: `warm routing · ${format} · ${kind} (decode included)`,
        ...cost,
        targetP50Us: TARGET_ROUTING_P50_US,
        note: await describeDecision(routing, format),
      });
    }
  }
  await pinned.close();
  await firstTurn.close();
  return rows;
}

async function limitsCacheRows(config: Config, options: CallCostOptions): Promise<CostRow[]> {
  const limiter = createLimiter({ config: { redis: config.redis }, log: () => {} });
  const settings = config.responseCache;
  const cache = createResponseCache({
    ttlMs: settings.ttlMs,
    decodeRaw: decodeRawAnswer,
    lru: createShardedLru<StoredEntry>({ maxBytes: settings.maxBytes, ttlMs: settings.ttlMs, shards: settings.shards }),
  });
  const body = FORMATS.chat.body(SAME_FORMAT_TIER, false);
  const hitKey = buildResponseCacheKey(ACCOUNT, "chat", body);
  cache.put(hitKey, ANSWER, { "x-router-model": "sim-all" });
  // A miss needs a key never seen: one field of the body changes per call (the rest is the same request).
  const missBody: Record<string, unknown> = { ...body };
  let counter = 0;
  const rows: CostRow[] = [];
  for (const [id, name, limits] of [
    ["uncapped", "no caps (bench account)", ENTERPRISE],
    ["capped", "rpm + concurrency + month caps", CAPPED],
  ] as const) {
    const subject: LimitSubject = { accountId: `${ACCOUNT}_${id}`, plan: "Enterprise", limits };
    const acquire = async (): Promise<{ release(): void; n: number }> => {
      const pending = limiter.acquire(subject);
      const decision = pending instanceof Promise ? await pending : pending;
      if (!decision.ok) throw new Error(`bench costs: the limiter refused (${decision.error.message})`);
      return { release: () => decision.lease.release(), n: Object.keys(decision.lease.headers).length };
    };
    const hit = async (): Promise<number> => {
      const lease = await acquire();
      const key = buildResponseCacheKey(ACCOUNT, "chat", body);
      const pending = cache.get(key);
      const answer = pending instanceof Promise ? await pending : pending;
      lease.release();
      return lease.n + (answer ? answer.response.content.length : 0);
    };
    const miss = async (): Promise<number> => {
      const lease = await acquire();
      missBody.user = `u${counter++}`;
      const key = buildResponseCacheKey(ACCOUNT, "chat", missBody);
      const pending = cache.get(key);
      const answer = pending instanceof Promise ? await pending : pending;
      if (!answer) cache.put(key, ANSWER, { "x-router-model": "sim-all" });
      lease.release();
      return lease.n + (answer ? 1 : 0) + key.length;
    };
    rows.push(
      { id: `limits-cache/${id}/hit`, label: `limits + cache · ${name} · acquire, key, hit (parse), release`, ...(await measureCallCost(hit, options)), targetP50Us: TARGET_LIMITS_CACHE_P50_US, note: `limiter ${limiter.backend}` },
      { id: `limits-cache/${id}/miss`, label: `limits + cache · ${name} · acquire, key, miss, store, release`, ...(await measureCallCost(miss, options)), targetP50Us: TARGET_LIMITS_CACHE_P50_US, note: `limiter ${limiter.backend}` },
    );
  }
  await limiter.close();
  return rows;
}

// A finished same-format JSON request as the pipeline reports it.
const RECORD: RequestRecord = {
  requestId: "req_0123456789abcdef01234567",
  startedAt: 1_790_000_000_000,
  endpoint: "chat",
  stream: false,
  accountId: ACCOUNT,
  plan: "Enterprise",
  tier: "normal",
  model: "sim-all",
  effort: "medium",
  source: "sticky",
  taskClass: "debug",
  status: 200,
  clientAborted: false,
  latencyMs: 1.2345,
  ttfbMs: 1.0123,
  usage: ANSWER.usage,
  costUsd: 0.000_123,
  cacheHit: false,
  attempts: 1,
  warnings: [],
};

/** The per-request observers: the request log line and the metrics, as each finished request calls them. */
async function observerRows(config: Config, options: CallCostOptions): Promise<CostRow[]> {
  const dir = mkdtempSync(join(tmpdir(), "routelane-bench-log-"));
  const log = createRequestLog({ level: "info", destination: join(dir, "requests.log"), logBodies: false });
  const metrics = createMetrics(() => config);
  try {
    const logCost = await measureCallCost(() => {
      log.observe(RECORD);
      return 1;
    }, options);
    const metricsCost = await measureCallCost(() => {
      metrics.observe(RECORD);
      metrics.cacheLookup("decision", true);
      return 1;
    }, options);
    await log.flush();
    return [
      { id: "observers/request-log", label: "request log · one line (pino, async file destination)", ...logCost, targetP50Us: undefined, note: "" },
      { id: "observers/metrics", label: "metrics · observe + decision-cache lookup count", ...metricsCost, targetP50Us: undefined, note: "" },
    ];
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Every cost row: warm routing per format, limits + cache on the in-process backend, the observers. */
export async function measureModuleCosts(options: CallCostOptions = DEFAULT_COST_OPTIONS): Promise<CostRow[]> {
  const config = loadBenchConfig();
  return [...(await routingRows(config, options)), ...(await limitsCacheRows(config, options)), ...(await observerRows(config, options))];
}
