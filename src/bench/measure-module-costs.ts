/**
 * The bench's cost section: each part of a request timed in-process, called the way a request
 * calls it, on the bench's gateway config and the run's database and Redis. No network to the
 * client and no load generator, so the numbers are the parts' own CPU per request: the budget the
 * path rows' CPU per request is spent on.
 */

import type { StreamEvent } from "../canonical/stream-event.ts";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountStore } from "../accounts/account-store.ts";
import { createKeyAuthenticator } from "../accounts/create-key-authenticator.ts";
import type { PlanLimits } from "../canonical/plans.ts";
import { buildResponseCacheKey, readCacheControl } from "../cache/build-response-cache-key.ts";
import { createResponseCache, type ResponseCache, type ResponseCacheOptions } from "../cache/create-response-cache.ts";
import { createByteLru, type ByteLru } from "../cache/create-byte-lru.ts";
import type { CanonicalResponse } from "../canonical/response.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { loadConfig } from "../config/load-config.ts";
import type { Config } from "../config/schema.ts";
import type { Database } from "../db/client.ts";
import { wireApi } from "../wire/wire-apis.ts";
import { parseJsonBody } from "../pipeline/read-json-body.ts";
import { createLimiter } from "../limits/create-limiter.ts";
import type { LimitSubject } from "../limits/limiter.ts";
import { createMetrics } from "../ops/create-metrics.ts";
import { createRequestLog } from "../ops/create-request-log.ts";
import { authenticateRequest } from "../pipeline/authenticate-request.ts";
import { decodeRawAnswer } from "../pipeline/decode-raw-answer.ts";
import { newRequestId } from "../pipeline/new-request-id.ts";
import type { RequestRecord } from "../canonical/request-record.ts";
import { createRedisLink, type RedisLink } from "../redis/create-redis-link.ts";
import { BENCH_REDIS_PREFIX } from "./bench-redis-prefix.ts";
import { createMemoryPinStore } from "../routing/create-memory-pin-store.ts";
import { createRedisPinStore } from "../routing/create-redis-pin-store.ts";
import { createRouting, type Routing } from "../routing/create-routing.ts";
import { decideRoute } from "../routing/decide-route.ts";
import { readSessionId } from "../routing/read-session-id.ts";
import { startSim, type SimServer } from "../sim/start-sim.ts";
import { createEventFramer } from "../upstream/passthrough/create-event-framer.ts";
import { createEventInspector } from "../upstream/passthrough/create-event-inspector.ts";
import { createKeptChunksTally } from "../upstream/passthrough/create-kept-chunks-tally.ts";
import { rewriteModel } from "../upstream/passthrough/create-model-rewriter.ts";
import { createTierRewrite } from "../upstream/passthrough/create-tier-rewrite.ts";
import { forEachEvent } from "../upstream/passthrough/for-each-event.ts";
import { sniffUsage } from "../upstream/passthrough/sniff-usage.ts";
import { createSseSplitter } from "../upstream/sse/create-sse-splitter.ts";
import { decodeUpstreamRead } from "../upstream/translated/decode-upstream-read.ts";
import { createUsageObserver } from "../usage/create-usage-observer.ts";
import { createUsageStore } from "../usage/create-usage-store.ts";
import { createUsageWriter } from "../usage/create-usage-writer.ts";
import { BENCH_EFFORT, BENCH_MODELS, buildBenchConfig, CROSS_TIERS, SAME_FORMAT_TIER } from "./build-bench-config.ts";
import { buildConversationBody } from "./build-conversation-body.ts";
import { createParseMemo, type ParseScope } from "../pipeline/create-parse-memo.ts";
import { countAllocatedCells, type AllocatedCells } from "./count-allocated-cells.ts";
import { measureCallCost, type CallCostOptions } from "./measure-call-cost.ts";
import { median } from "./median-of-rounds.ts";
import { asForwarded, FORMATS, LONG_STREAM_WORDS, TRICKLED_STREAM_WORDS, type BenchFormat } from "./scenarios.ts";
import { streamOneEventARead } from "./stream-one-event-a-read.ts";

/**
 * Targets an earlier issue set for two parts, µs at p50. The limits' is for the in-process backend:
 * with Redis an acquire and its release are two round trips, which no target named.
 */
const TARGET_ROUTING_P50_US = 50;
const TARGET_LIMITS_P50_US = 30;

/** The parts of a request the issue names, so the budget reads part by part. */
export type CostPart =
  | "auth"
  | "body check"
  | "limits"
  | "routing"
  | "cache key + store"
  | "usage row"
  | "request log"
  | "metrics"
  | "same-format answer"
  | "translation";

export interface CostRow {
  readonly id: string;
  readonly part: CostPart;
  readonly label: string;
  /** CPU µs per call (the process's, every thread): what the part adds to a request's CPU on average, GC included. */
  readonly meanUs: number;
  /** Per call; undefined where calls are not timed one by one (the usage row is process CPU over many). */
  readonly p50Us: number | undefined;
  readonly p99Us: number | undefined;
  readonly calls: number;
  /** The p50 target, where an issue set one for this part. */
  readonly targetP50Us: number | undefined;
  /** What the calls saw (the decision's source, the backend), so a reader can tell the path taken. */
  readonly note: string;
  readonly sink: number;
  /** Heap cells a call allocates (countAllocatedCells), and the types most allocated; undefined where not counted. */
  readonly cells?: AllocatedCells | undefined;
}

export interface CostOptions {
  /** The run's database, opened (and migrated) by the caller. */
  readonly database: Database;
  /** The run's Redis, when it has one: limits, pins and the response cache's second level go through it, as the gateway's do. */
  readonly redisUrl?: string | undefined;
  /** The client formats whose per-format parts are timed. */
  readonly formats: readonly BenchFormat[];
  readonly calls?: CallCostOptions | undefined;
  /**
   * The path rows' connections. With Redis, the limits, the routing and the cache store are also
   * timed with this many calls under way: the path rows' requests send their commands together,
   * sharing round trips, so one call at a time overstates what a loaded request pays (the budget
   * takes these rows). The trickled streams run this many at once too.
   */
  readonly loadedInFlight?: number | undefined;
}

/**
 * The quick form's rounds stop at 100 ms (see `roundMs`). On a VM whose bare proxy cost three times
 * the CPU a request of the last one's, `bun run bench` took 201 s at full counts, 36 s of them in
 * this section, over its three minutes; with the stop, 179 s (and 183 s on Postgres + Redis, whose
 * separate first start adds 11 s), 12-17 s of them here.
 */
export const QUICK_COST_CALLS: CallCostOptions = { warmup: 2_000, iterations: 10_000, rounds: 3, roundMs: 100 };
export const FULL_COST_CALLS: CallCostOptions = { warmup: 5_000, iterations: 20_000, rounds: 5 };
/** For the parts that take milliseconds a call (a 1 MB body, a 2,000-event stream). */
const heavy = (calls: CallCostOptions): CallCostOptions => ({ ...calls, warmup: Math.min(calls.warmup, 30), iterations: Math.max(10, Math.round(calls.iterations / 50)) });

/** For the trickled streams, whose call is a loaded pass's worth of them (32 × 200 events, tens of ms). */
const trickledCalls = (calls: CallCostOptions): CallCostOptions => ({ ...calls, warmup: Math.min(calls.warmup, 3), iterations: Math.max(5, Math.round(calls.iterations / 1_000)) });

/** L1 counts as full past this share of its budget (a ring's log leaves gaps, so it never holds it all). */
const FILLED_SHARE = 0.9;
/** A bound on the stores that fill it, per warm-up call of the other parts (the quick form's: 500,000). */
const FILL_CALLS_PER_WARMUP_CALL = 250;

/** A new task's text, numbered on each call so that none repeats. */
const USER_TASK = "Find why the nightly export job writes duplicate rows and propose a fix";

const CAPPED: PlanLimits = { requestsPerMinute: 100_000_000, concurrentRequests: 100_000, tokensPerMonth: 1_000_000_000_000_000 };

/**
 * What the pipeline does with a request body's bytes before routing: scan them, decode and parse
 * them (noting where its members lie, for a body large enough to send on as it came; with
 * `reuse`, reading its pieces the account sent before from the parse memo), check it against the
 * API's schema and rules. Returns a number derived from the result.
 */
function checkBody(format: WireFormat, bytes: Uint8Array, reuse?: ParseScope): number {
  const { value, sent } = parseJsonBody(bytes, reuse);
  return Object.keys(wireApi(format).checkRequest(value)).length + (sent ? 1 : 0);
}

/** The gateway's Config for the bench's config file, read the way the gateway reads it. */
function loadBenchConfig(): Config {
  const dir = mkdtempSync(join(tmpdir(), "routelane-bench-costs-"));
  try {
    const path = join(dir, "routelane.bench.json");
    writeFileSync(path, JSON.stringify({ ...buildBenchConfig("http://127.0.0.1:9"), redis: { keyPrefix: `${BENCH_REDIS_PREFIX}costs:` } }));
    return loadConfig({ ROUTELANE_CONFIG: path, ROUTELANE_DATA_DIR: join(dir, "data") });
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

// The size of a simulated answer with thinking: what the cache stores on a miss.
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

const headersOf = (format: BenchFormat, key: string): Headers =>
  new Headers(format === "messages" ? { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" } : { "content-type": "application/json", authorization: `Bearer ${key}` });

interface Timed {
  readonly id: string;
  readonly part: CostPart;
  readonly label: string;
  readonly call: () => number | Promise<number>;
  readonly calls?: CallCostOptions;
  readonly targetP50Us?: number;
  readonly note?: string;
}

async function time(rows: CostRow[], options: CallCostOptions, timed: Timed): Promise<void> {
  const cost = await measureCallCost(timed.call, timed.calls ?? options);
  const cells = options.countCells === false ? undefined : await countAllocatedCells(timed.call);
  rows.push({ id: timed.id, part: timed.part, label: timed.label, ...cost, targetP50Us: timed.targetP50Us, note: timed.note ?? "", cells });
}

/** Upstream answers the parts read, fetched once from an in-process sim: the same bytes the gateway gets in the bench. */
async function fetchAnswer(sim: SimServer, api: WireFormat, body: Record<string, unknown>): Promise<Uint8Array[]> {
  const response = await fetch(sim.url + FORMATS[api].path, {
    method: "POST",
    headers: { "content-type": "application/json", ...(api === "messages" ? { "anthropic-version": "2023-06-01" } : {}) },
    body: JSON.stringify(body),
  });
  if (!response.ok || !response.body) throw new Error(`bench costs: the sim answered ${response.status} on ${api}`);
  const chunks: Uint8Array[] = [];
  for await (const chunk of response.body) chunks.push(chunk);
  return chunks;
}

/** One chunk per event, as an upstream that flushes each event sends them (the framer's worst case). */
function perEvent(chunks: readonly Uint8Array[]): Uint8Array[] {
  const text = Buffer.concat(chunks).toString("utf8");
  return text
    .split("\n\n")
    .filter((block) => block.trim() !== "")
    .map((block) => Buffer.from(`${block}\n\n`));
}

/**
 * Same-format: each event read once as it passes (framer, walk, inspector) and `model` rewritten, as
 * the pipe does; its text counted as the pipe of a stream the response cache keeps counts it (from
 * the kept chunks, only when asked: never, for an answer that reports its usage).
 */
function sameFormatStream(format: BenchFormat, chunks: readonly Uint8Array[]): () => number {
  return () => {
    const framer = createEventFramer(1 << 20);
    const inspector = createEventInspector(wireApi(format), false, createKeptChunksTally(wireApi(format), () => chunks));
    const rewrite = createTierRewrite(wireApi(format), BENCH_MODELS.all, SAME_FORMAT_TIER);
    let out = 0;
    for (const chunk of chunks) {
      const bytes = framer.push(chunk);
      forEachEvent(bytes, (event) => {
        if (event.data !== undefined && inspector.step(event.name, event.data) !== "malformed") out++;
        return true;
      });
      out += rewrite(bytes).length;
    }
    return out;
  };
}

/** Translated: the request encoded for the upstream API, the answer decoded and encoded in the client's. */
function translation(format: BenchFormat, body: Record<string, unknown>, answer: readonly Uint8Array[], stream: boolean, config: Config): () => number {
  const api = CROSS_TIERS[format].api;
  const modelName = api === "chat" ? BENCH_MODELS.chat : BENCH_MODELS.messages;
  const model = config.models[modelName]!;
  const adapter = wireApi(api).upstream;
  const client = wireApi(format).client;
  const canonical = client.decodeRequest(body).value;
  const encode = { model: CROSS_TIERS[format].tier, created: 1_790_000_000, includeUsage: true };
  const bytes = Buffer.concat(answer);
  // As the gateway's pipe does: one list of events and one of pieces for every call, emptied after each read.
  const events: StreamEvent[] = [];
  const parts: string[] = [];
  return () => {
    const upstream = adapter.encodeRequest(canonical, { upstreamModelId: modelName, model }).value;
    wireApi(api).setEffort(upstream, BENCH_EFFORT, model);
    let out = JSON.stringify(upstream).length;
    if (!stream) {
      const decoded = adapter.decodeResponse(JSON.parse(bytes.toString("utf8")));
      return out + JSON.stringify(client.encodeResponse(decoded.value, encode)).length;
    }
    const reading = { splitter: createSseSplitter(1 << 20), decoder: adapter.stream.initial() };
    let encoder = client.stream.initial(encode);
    // Each read's events decoded into one list, their texts joined once.
    for (const chunk of [...answer, null]) {
      events.length = 0;
      for (const canonicalEvent of decodeUpstreamRead(reading, chunk, adapter, 1 << 20, events)) encoder = client.stream.stepInto(encoder, canonicalEvent, parts);
      out += parts.join("").length;
      parts.length = 0;
    }
    return out;
  };
}

/** A Messages conversation as a client of `format` sends it: through the canonical request, as the gateway would forward it there. */
function conversationAs(format: "chat" | "responses", body: Record<string, unknown>, config: Config): Record<string, unknown> {
  const canonical = wireApi("messages").client.decodeRequest(body).value;
  const model = config.models[BENCH_MODELS.all]!;
  const encoded = wireApi(format).upstream.encodeRequest(canonical, { upstreamModelId: SAME_FORMAT_TIER, model }).value as Record<string, unknown>;
  return { ...encoded, model: SAME_FORMAT_TIER };
}

function routingCall(routing: Routing, format: BenchFormat, body: Record<string, unknown>, headers: Headers): () => Promise<number> {
  const principal = { accountId: "acct_bench_costs" };
  return async () => {
    const request = wireApi(format).client.decodeRequest(body).value;
    const decision = await decideRoute(routing, { principal, tier: SAME_FORMAT_TIER, request, format, sessionId: readSessionId(headers, request) });
    await decision.recordOutcome(decision.modelName);
    return decision.modelName.length + (decision.cached ? 1 : 0);
  };
}

// A finished same-format JSON request as the pipeline reports it.
const RECORD: RequestRecord = {
  requestId: "req_0123456789abcdef01234567",
  startedAt: 1_790_000_000_000,
  endpoint: "messages",
  stream: false,
  accountId: "acct_bench_costs",
  plan: "Enterprise",
  tier: "normal",
  model: BENCH_MODELS.all,
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

/**
 * Rows written before the usage row is timed, per warm-up call of the other parts. PGlite's database
 * is WebAssembly, which JSC compiles again, hotter, as it runs: after 2,000 rows a first round of
 * 40,000 took 32 µs of CPU a row (11 of them the compilers'), the next five 17-20 each (a throwaway
 * script on the bench config, thread by thread). The gateway's own database has served its settling
 * by the time the cost section runs, so the part is timed as warm as that.
 */
const USAGE_WARMUP_ROWS_PER_CALL = 20;
const MAX_USAGE_WARMUP_ROWS = 40_000;

/**
 * The usage row: the observer (price, row) and the writer's batched insert into the run's
 * database. Inserts run on another thread (PGlite's) or in Postgres, so this part is the process's
 * CPU (every thread) over many rows, not per-call timing: the median of the rounds' CPU a row.
 */
async function usageRow(database: Database, config: Config, calls: CallCostOptions): Promise<CostRow> {
  const writer = createUsageWriter({ store: createUsageStore(database), ...config.usage });
  const observe = createUsageObserver({ writer, models: config.models });
  const write = async (rows: number): Promise<void> => {
    for (let i = 0; i < rows; i++) {
      observe({ ...RECORD, requestId: newRequestId() });
      // As under load: a batch goes out once it has filled, while more rows arrive.
      if ((i + 1) % config.usage.batchRows === 0) await writer.flush();
    }
    await writer.flush();
  };
  await write(Math.min(calls.warmup * USAGE_WARMUP_ROWS_PER_CALL, MAX_USAGE_WARMUP_ROWS));
  const perRow: number[] = [];
  for (let round = 0; round < calls.rounds; round++) {
    const before = process.cpuUsage();
    await write(calls.iterations);
    const used = process.cpuUsage(before);
    perRow.push((used.user + used.system) / calls.iterations);
  }
  await writer.close();
  const rows = calls.iterations * calls.rounds;
  return {
    id: "usage-row",
    part: "usage row",
    label: `usage row · observer + batched insert (${config.usage.batchRows} a batch), all threads`,
    meanUs: median(perRow),
    p50Us: undefined,
    p99Us: undefined,
    calls: rows,
    targetP50Us: undefined,
    note: database.kind === "pglite" ? "PGlite, in the process" : "Postgres, the client side only",
    sink: rows,
  };
}

/** Every part: the shared ones once, the per-format ones for each format of the run, and the big bodies' scaling. */
export async function measureModuleCosts(options: CostOptions): Promise<CostRow[]> {
  const calls = options.calls ?? QUICK_COST_CALLS;
  const config = loadBenchConfig();
  const rows: CostRow[] = [];
  const { database } = options;
  const link: RedisLink | undefined = options.redisUrl ? createRedisLink({ url: options.redisUrl }) : undefined;
  const sim = await startSim({ port: 0 });
  const { key } = (await createAccountStore(database).createAccount({ plan: "Enterprise" })).key;
  const authenticator = await createKeyAuthenticator({ database, ttlMs: config.keyCacheTtlMs });
  const limiter = createLimiter({ config, redis: link, log: () => {} });
  // With the run's database, as the gateway's: the decision cache keeps its decisions there if the config says so.
  const routing = createRouting({ config, database, pins: createMemoryPinStore(config.routing.conversations.maxPins) });
  const l1Of = (): ByteLru => createByteLru({ maxBytes: config.responseCache.maxBytes, ttlMs: config.responseCache.ttlMs, shards: config.responseCache.shards });
  const cacheOf = (lru: ByteLru, redis: ResponseCacheOptions["redis"]): ResponseCache =>
    createResponseCache({ ttlMs: config.responseCache.ttlMs, decodeRaw: decodeRawAnswer, lru, redis });
  const l1 = l1Of();
  const cache = cacheOf(l1, undefined);
  // With Redis, as the gateway has them: the pins and the response cache's second level there,
  // timed under the path rows' load as well (their commands share round trips, as the limits' do).
  const inFlight = options.loadedInFlight ?? 1;
  const sharedL1 = link && inFlight > 1 ? l1Of() : undefined;
  const shared = link && sharedL1
    ? {
        routing: createRouting({ config, database, pins: createRedisPinStore({ link, prefix: `${config.redis.keyPrefix}pin:` }) }),
        l1: sharedL1,
        cache: cacheOf(sharedL1, { link, keyPrefix: config.redis.keyPrefix }),
        calls: { ...calls, inFlight },
      }
    : undefined;
  const logDir = mkdtempSync(join(tmpdir(), "routelane-bench-log-"));
  const log = createRequestLog({ level: "info", destination: join(logDir, "requests.log"), logBodies: false });
  const metrics = createMetrics(() => config);
  try {
    const authHeaders = headersOf("messages", key);
    await time(rows, calls, {
      id: "auth",
      part: "auth",
      label: "auth · key from the header, hashed, resolved from memory",
      call: async () => (await authenticateRequest(authHeaders, authenticator)).accountId.length,
    });
    const subject: LimitSubject = { accountId: "acct_bench_costs_limits", plan: "Enterprise", limits: CAPPED };
    const acquireAndRelease = async (): Promise<number> => {
      const pending = limiter.acquire(subject);
      const decision = pending instanceof Promise ? await pending : pending;
      if (!decision.ok) throw new Error(`bench costs: the limiter refused (${decision.error.message})`);
      await decision.lease.release();
      return Object.keys(decision.lease.headers).length + 1;
    };
    const inProcess = limiter.backend === "memory";
    await time(rows, calls, {
      id: "limits",
      part: "limits",
      label: "limits · acquire (rpm, concurrency, month) + release",
      targetP50Us: inProcess ? TARGET_LIMITS_P50_US : undefined,
      note: inProcess ? "limiter memory" : `limiter redis; the ${TARGET_LIMITS_P50_US} µs p50 target is the in-process backend's`,
      call: acquireAndRelease,
    });
    if (link && inFlight > 1) {
      await time(rows, calls, {
        id: "limits/loaded",
        part: "limits",
        label: `limits · the same, ${inFlight} calls under way (the path rows' load)`,
        note: `limiter ${limiter.backend}; p50/p99 include the wait for a shared round trip`,
        calls: { ...calls, inFlight },
        call: acquireAndRelease,
      });
    }
    rows.push(await usageRow(database, config, calls));
    await time(rows, calls, { id: "request-log", part: "request log", label: "request log · one line (to a file)", call: () => {
        log.observe(RECORD);
        return 1;
      },
    });
    await time(rows, calls, {
      id: "metrics",
      part: "metrics",
      label: "metrics · observe + cache lookups + upstream attempt",
      call: () => {
        metrics.observe(RECORD);
        metrics.cacheLookup("decision", true);
        metrics.cacheLookup("response", false);
        metrics.upstreamAttempt(BENCH_MODELS.all, "ok");
        return 1;
      },
    });
    for (const format of options.formats) {
      const body = FORMATS[format].body(SAME_FORMAT_TIER, false);
      const bytes = Buffer.from(JSON.stringify(body));
      const headers = headersOf(format, key);
      await time(rows, calls, {
        id: `body-check/${format}`,
        part: "body check",
        label: `body check · ${format} · decode + scan + JSON.parse + schema + API rules`,
        call: () => checkBody(format, bytes),
      });
      await time(rows, calls, {
        id: `routing/${format}`,
        part: "routing",
        label: `routing · ${format} · decode + decide + pin (warm)`,
        targetP50Us: TARGET_ROUTING_P50_US,
        call: routingCall(routing, format, body, headers),
      });
      if (shared) {
        await time(rows, shared.calls, {
          id: `routing/${format}/loaded`,
          part: "routing",
          label: `routing · ${format} · the same, pins in Redis, ${inFlight} calls under way`,
          note: "p50/p99 include the wait for a shared round trip",
          call: routingCall(shared.routing, format, body, headers),
        });
      }
      // An agent's new task: a text never classified, so the decision cache misses (and, were the
      // decisions kept in the database, the lookup would wait for it), a new conversation pinned.
      let task = 0;
      await time(rows, calls, {
        id: `routing-new/${format}`,
        part: "routing",
        label: `routing · ${format} · a new task: body built, decode + classify + decide + pin`,
        call: () => routingCall(routing, format, FORMATS[format].body(SAME_FORMAT_TIER, false, { text: `${USER_TASK} (task ${task++})`, maxTokens: 256 }), headers)(),
      });
      let counter = 0;
      const missBody: Record<string, unknown> = { metadata: {}, ...body };
      const restText = JSON.stringify(body).slice(1);
      // A user id of one width on every call: the members lie where the first text's scan found them.
      const textOf = (user: string) => `{"metadata":{"user_id":"${user}"},${restText}`;
      const userOf = (n: number) => `u${String(n).padStart(9, "0")}`;
      const { members } = parseJsonBody(Buffer.from(textOf(userOf(0))));
      const storeMiss = (into: ResponseCache): number => {
        // A new key each call, as each bench request's answer is stored anew; the text is the body as a client sends it.
        const user = userOf(counter++);
        missBody.metadata = { user_id: user };
        const control = readCacheControl(headers);
        const cacheKey = buildResponseCacheKey("acct_bench_costs", format, missBody, { bytes: Buffer.from(textOf(user)), members });
        into.put(cacheKey, ANSWER, { "x-router-model": BENCH_MODELS.all });
        return cacheKey.length + (control.store ? 1 : 0);
      };
      // Stored until L1 holds most of its budget, as a gateway's does after its first minute of new
      // conversations: its rings have then grown as large as they get. A store into a ring still
      // growing also pays for the growth (a new buffer, the entries moved, the collector's work for
      // the memory), which timed 20-80 µs of CPU a call where the p50 was 4-8 µs.
      // Filled through a cache without Redis: the one with it would send as many SETs at once.
      const fill = (lru: ByteLru): void => {
        const into = cacheOf(lru, undefined);
        for (let i = 0; i < calls.warmup * FILL_CALLS_PER_WARMUP_CALL && lru.bytes < FILLED_SHARE * config.responseCache.maxBytes; i++) storeMiss(into);
      };
      fill(l1);
      await time(rows, calls, { id: `cache/${format}`, part: "cache key + store", label: `cache key + store · ${format} · a miss stored`, call: () => storeMiss(cache) });
      if (shared) {
        fill(shared.l1);
        await time(rows, shared.calls, {
          id: `cache/${format}/loaded`,
          part: "cache key + store",
          label: `cache key + store · ${format} · the same, second level in Redis, ${inFlight} calls under way`,
          // The store's SET is not awaited (nor is it by a request): each call yields the turn, as a
          // request does between its parts, so the SETs go out and are answered within the round.
          note: "each call yields one turn",
          call: async () => {
            const out = storeMiss(shared.cache);
            await new Promise<void>((resolve) => setImmediate(resolve));
            return out;
          },
        });
      }
      const forwarded = asForwarded(format, FORMATS[format].body(BENCH_MODELS.all, false));
      const json = Buffer.concat(await fetchAnswer(sim, format, forwarded));
      await time(rows, calls, {
        id: `same-format-json/${format}`,
        part: "same-format answer",
        label: `same-format JSON answer · ${format} · model rewrite + usage read`,
        call: () => rewriteModel(json, BENCH_MODELS.all, SAME_FORMAT_TIER)[1] + (sniffUsage(wireApi(format), [json])?.outputTokens ?? 0),
      });
      const events = perEvent(await fetchAnswer(sim, format, asForwarded(format, FORMATS[format].body(BENCH_MODELS.all, true))));
      await time(rows, calls, {
        id: `same-format-stream/${format}`,
        part: "same-format answer",
        label: `same-format stream · ${format} · ${events.length} events framed, read, model rewritten`,
        call: sameFormatStream(format, events),
      });
      // The trickled row's answer, an event a read, as many streams at once as the loaded pass has
      // connections: the pipe against a bare direct stream on the same reads.
      const trickled = perEvent(await fetchAnswer(sim, format, asForwarded(format, FORMATS[format].body(BENCH_MODELS.all, true, { text: `[sim words=${TRICKLED_STREAM_WORDS}]`, maxTokens: 2_048 }))));
      const atOnce = options.loadedInFlight ?? 1;
      const streamCalls = trickledCalls(calls);
      const floor = await measureCallCost(streamOneEventARead(format, trickled, "bare", config, atOnce), streamCalls);
      const piped = await measureCallCost(streamOneEventARead(format, trickled, "pipe", config, atOnce), streamCalls);
      rows.push({
        id: `same-format-trickled/${format}`,
        part: "same-format answer",
        label: `same-format stream · ${format} · ${atOnce} × ${trickled.length} events one a read, the pipe read by Bun's Response`,
        ...piped,
        targetP50Us: undefined,
        note: `a bare direct stream on the same reads ${floor.meanUs.toFixed(0)} µs; the pipe ${((piped.meanUs - floor.meanUs) / (atOnce * trickled.length)).toFixed(2)} µs an event beyond it`,
      });
      const api = CROSS_TIERS[format].api;
      const upstreamBody = (stream: boolean, words?: number): Record<string, unknown> => {
        const canonical = wireApi(format).client.decodeRequest(words === undefined ? FORMATS[format].body(SAME_FORMAT_TIER, stream) : FORMATS[format].body(SAME_FORMAT_TIER, stream, { text: `[sim words=${words}]`, maxTokens: 8_192 })).value;
        const modelName = api === "chat" ? BENCH_MODELS.chat : BENCH_MODELS.messages;
        const encoded = wireApi(api).upstream.encodeRequest(canonical, { upstreamModelId: modelName, model: config.models[modelName]! }).value;
        wireApi(api).setEffort(encoded, BENCH_EFFORT, config.models[modelName]!);
        return encoded;
      };
      await time(rows, calls, {
        id: `translation-json/${format}`,
        part: "translation",
        label: `translation · ${format} → ${api} JSON · request encoded, answer decoded + encoded`,
        call: translation(format, body, [Buffer.concat(await fetchAnswer(sim, api, upstreamBody(false)))], false, config),
      });
      const upstreamEvents = perEvent(await fetchAnswer(sim, api, upstreamBody(true)));
      await time(rows, calls, {
        id: `translation-stream/${format}`,
        part: "translation",
        label: `translation · ${format} → ${api} stream · ${upstreamEvents.length} events`,
        call: translation(format, FORMATS[format].body(SAME_FORMAT_TIER, true), upstreamEvents, true, config),
      });
      const longEvents = perEvent(await fetchAnswer(sim, api, upstreamBody(true, LONG_STREAM_WORDS)));
      await time(rows, calls, {
        id: `translation-long/${format}`,
        part: "translation",
        label: `translation · ${format} → ${api} stream · ${longEvents.length} events`,
        calls: heavy(calls),
        note: "the long-stream answer",
        call: translation(format, FORMATS[format].body(SAME_FORMAT_TIER, true), longEvents, true, config),
      });
    }
    // The big conversation's parts that walk the whole body: how they grow with it.
    const big = buildConversationBody({ targetBytes: 1024 * 1024, images: false, model: SAME_FORMAT_TIER, stream: false, maxTokens: 256 });
    const bigBytes = Buffer.from(JSON.stringify(big));
    const bigHeaders = headersOf("messages", key);
    const memo = createParseMemo({ maxChars: config.parseMemoChars });
    // The body as the gateway holds it on an agent's next turn: its messages shared from the memo
    // (seen twice before), which the decode reads once.
    const readBig = () => parseJsonBody(bigBytes, memo.scope("acct_bench_costs")).value as Record<string, unknown>;
    readBig();
    readBig();
    const sharedBig = readBig();
    // The same conversation as a Chat and a Responses client sends it (Codex speaks Responses), read
    // as the gateway reads their next turns: each from its own account's memo, seen twice before.
    const sharedIn = (format: "chat" | "responses"): Record<string, unknown> => {
      const bytes = Buffer.from(JSON.stringify(conversationAs(format, big, config)));
      const scope = memo.scope(`acct_bench_costs_${format}`);
      for (let sighting = 0; sighting < 2; sighting++) wireApi(format).client.decodeRequest(wireApi(format).checkRequest(parseJsonBody(bytes, scope).value));
      return parseJsonBody(bytes, scope).value as Record<string, unknown>;
    };
    // The key as the gateway computes it for an agent's turn: streamed (`stream` last), from the text read.
    const streamedBig = parseJsonBody(Buffer.from(JSON.stringify({ ...big, stream: true })));
    for (const timed of [
      // As the gateway reads an agent's next turn: the conversation's pieces are in the memo.
      { id: "body-check/1m", part: "body check", label: "body check · 1 MB conversation, sent before", call: () => checkBody("messages", bigBytes, memo.scope("acct_bench_costs")) },
      // Its first sight: each piece noted, none reused (a new memo each call).
      { id: "body-check/1m-new", part: "body check", label: "body check · 1 MB conversation, first sight", call: () => checkBody("messages", bigBytes, createParseMemo({ maxChars: config.parseMemoChars }).scope("acct_bench_costs")) },
      { id: "routing/1m", part: "routing", label: "routing · 1 MB conversation, sent before · decode + decide + pin", call: routingCall(routing, "messages", sharedBig, bigHeaders) },
      { id: "routing/1m-new", part: "routing", label: "routing · 1 MB conversation, first sight · decode + decide + pin", call: routingCall(routing, "messages", big, bigHeaders) },
      ...(["chat", "responses"] as const).map((format) => ({
        id: `routing/1m-${format}`,
        part: "routing" as const,
        label: `routing · 1 MB conversation in ${format}, sent before · decode + decide + pin`,
        call: routingCall(routing, format, sharedIn(format), headersOf(format, key)),
      })),
      {
        id: "cache/1m",
        part: "cache key + store",
        label: "cache key · 1 MB conversation, streamed",
        call: () => buildResponseCacheKey("acct_bench_costs", "messages", streamedBig.value as Record<string, unknown>, streamedBig).length,
      },
    ] satisfies readonly Timed[]) {
      await time(rows, calls, { ...timed, calls: heavy(calls), note: `${Math.round(bigBytes.length / 1024)} KB` });
    }
    return rows;
  } finally {
    await log.flush();
    rmSync(logDir, { recursive: true, force: true });
    await limiter.close();
    await routing.close();
    await shared?.routing.close();
    await authenticator.close();
    sim.stop();
    link?.close();
  }
}
