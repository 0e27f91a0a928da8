import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import type { WireFormat } from "../../src/canonical/wire-format.ts";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig, ModelConfig, RoutingConfig } from "../../src/config/schema.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/** Shared setup of the routing end-to-end tests: a gateway on a config of their own, and small readers. */

export const PATHS: Readonly<Record<WireFormat, string>> = { messages: "/v1/messages", chat: "/v1/chat/completions", responses: "/v1/responses" };

/** The two models of the `normal` tier in these tests; their names double as the upstream ids the sim sees. */
export const FIRST = "first-model";
export const SECOND = "second-model";

export interface TwoModelOptions {
  /** APIs each model speaks (default: Messages for both). */
  readonly apis?: readonly [readonly WireFormat[], readonly WireFormat[]];
  readonly routing?: Partial<RoutingConfig>;
}

/**
 * The default config (response cache off) with `normal` made of two simulated models, FIRST then
 * SECOND, both like `sim-normal` apart from the APIs they speak.
 */
export function twoModelConfig(options: TwoModelOptions = {}): FileConfig {
  const [firstApis, secondApis] = options.apis ?? [["messages"], ["messages"]];
  const base = DEFAULT_CONFIG.models["sim-normal"]!;
  const model = (upstreamId: string, apis: readonly WireFormat[]): ModelConfig => ({ ...base, upstreamId, apis: [...apis] as ModelConfig["apis"] });
  return {
    ...UNCACHED_CONFIG,
    models: { ...DEFAULT_CONFIG.models, [FIRST]: model(FIRST, firstApis), [SECOND]: model(SECOND, secondApis) },
    tiers: { ...DEFAULT_CONFIG.tiers, normal: { ...DEFAULT_CONFIG.tiers.normal, models: [FIRST, SECOND] } },
    routing: { ...UNCACHED_CONFIG.routing!, ...options.routing },
  };
}

export interface RoutingGateway extends TestGateway {
  /** A key of a fresh Enterprise account (every tier allowed). */
  readonly key: string;
}

/** `redis`: pins (and limits) in the Redis at REDIS_URL under a prefix of this gateway's own, when it is set. */
export async function startRoutingGateway(fileConfig: FileConfig, options: { readonly redis?: boolean } = {}): Promise<RoutingGateway> {
  const gw = await startTestGateway({ fileConfig, redis: options.redis === true && process.env.REDIS_URL !== undefined });
  const { key } = await gw.account("Enterprise");
  return Object.assign(gw, { key });
}

/** A raw POST of `body` in `format`, with extra headers (e.g. `x-sim-fault`). */
export function post(gw: RoutingGateway, format: WireFormat, body: unknown, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(gw.url + PATHS[format], {
    method: "POST",
    headers: { authorization: `Bearer ${gw.key}`, "content-type": "application/json", "anthropic-version": "2023-06-01", ...headers },
    body: JSON.stringify(body),
  });
}

/** A one-turn request of `format` on the `normal` tier. */
export function oneTurn(format: WireFormat, text: string, stream = false): Record<string, unknown> {
  if (format === "messages") return { model: "normal", max_tokens: 512, stream, messages: [{ role: "user", content: text }] };
  if (format === "chat") return { model: "normal", stream, messages: [{ role: "user", content: text }] };
  return { model: "normal", stream, input: text };
}

/** Where the simulated upstream's record stands now, to read what came after with `upstreamModelsSince`. */
export function simMark(gw: TestGateway): number {
  return gw.gateway.sim!.received.length;
}

/** The upstream model ids the simulated upstream was asked for since `mark`, in order. */
export function upstreamModelsSince(gw: TestGateway, mark: number): string[] {
  return gw.gateway.sim!.received.slice(mark).map((r) => String((r.body as { model?: unknown }).model));
}

/** The `x-router-*` headers of an answer that matter to routing. */
export function routeOf(response: Response): { model: string | null; effort: string | null; source: string | null } {
  return {
    model: response.headers.get("x-router-model"),
    effort: response.headers.get("x-router-effort"),
    source: response.headers.get("x-router-source"),
  };
}

/** The official SDK clients on the gateway, without retries (a retry would hide a failed attempt). */
export function sdkClients(gw: RoutingGateway, headers: Record<string, string> = {}): { anthropic: Anthropic; openai: OpenAI } {
  return {
    anthropic: new Anthropic({ baseURL: gw.url, apiKey: gw.key, maxRetries: 0, defaultHeaders: headers }),
    openai: new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: gw.key, maxRetries: 0, defaultHeaders: headers }),
  };
}

/** The value of one series on /metrics (0 when absent), labels matched exactly as rendered. */
export async function readMetric(gw: { readonly url: string }, name: string, labels: Record<string, string>): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split("\n")) {
    if (!line.startsWith(`${name}{`)) continue;
    const inner = line.slice(name.length + 1, line.indexOf("}"));
    const have = inner.split(",");
    if (wanted.every((pair) => have.includes(pair))) return Number(line.slice(line.lastIndexOf(" ") + 1));
  }
  return 0;
}

/** Resolves once the simulated upstream has received a request for `upstreamId` after `mark`. */
export async function upstreamReached(gw: TestGateway, mark: number, upstreamId: string, timeoutMs = 5_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!upstreamModelsSince(gw, mark).includes(upstreamId)) {
    if (Date.now() > deadline) throw new Error(`the simulated upstream was not asked for ${upstreamId} within ${timeoutMs} ms`);
    await Bun.sleep(5);
  }
}
