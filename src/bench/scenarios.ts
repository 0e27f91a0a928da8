/**
 * The bench's scenario table. A scenario is one (format, mode, target) cell: the request a client
 * would send there. `gateway` is the same-format path (the tier's model speaks the client's API);
 * `cross` is the same client request on a tier whose model speaks another API, so the gateway
 * translates both ways. Both are measured against `bare` in the client's own format, and both send
 * `cache-control: no-cache` so the response cache (on in the bench config) never answers them:
 * they measure the full path, storing each answer as a miss does. `cached` repeats the `gateway`
 * request without that header, so every request after the first is answered from the cache.
 * `baseline` is the `gateway` request sent to a second gateway started from another checkout
 * (`--baseline <dir>`): the old code, measured in the same rounds as the new.
 */

import { SET_EFFORT } from "../upstream/set-effort.ts";
import { BENCH_EFFORT, BENCH_MODELS, buildBenchConfig, CROSS_TIERS, SAME_FORMAT_TIER } from "./build-bench-config.ts";
import type { JsonObject } from "../canonical/json-object.ts";

export const FORMAT_NAMES = ["messages", "chat", "responses"] as const;
export const MODE_NAMES = ["json", "stream"] as const;
// `baseline` right after `gateway`: each round runs the two back to back, under the same outside load.
export const TARGET_NAMES = ["direct", "bare", "gateway", "baseline", "cross", "cached"] as const;

export type BenchFormat = (typeof FORMAT_NAMES)[number];
export type BenchMode = (typeof MODE_NAMES)[number];
export type BenchTarget = (typeof TARGET_NAMES)[number];

export interface Scenario {
  /** "messages/stream/gateway": unique, stable, used as the key in JSON output. */
  readonly id: string;
  readonly format: BenchFormat;
  readonly mode: BenchMode;
  readonly target: BenchTarget;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
}

/** Where each target listens, and the key for the gateway. */
export interface TargetEndpoints {
  readonly direct: string;
  readonly bare: string;
  readonly gateway: string;
  readonly gatewayKey: string;
  /** The gateway started from the `--baseline` checkout, with its own account's key; absent without it. */
  readonly baseline?: { readonly url: string; readonly key: string } | undefined;
}

const SYSTEM_PROMPT = "You are a concise senior engineer. Answer with short, direct explanations and code only when it helps.";
// ~200 characters: the size of a typical chat turn, so parse/stringify cost is realistic but small.
const USER_MESSAGE =
  "Our Bun service reads a JSON config at start-up. What is the simplest way to validate it with TypeBox and " +
  "fail fast with a readable error that names the bad field? Show a short example please.";
const MAX_TOKENS = 256;

interface FormatSpec {
  readonly path: string;
  readonly body: (model: string, stream: boolean) => Record<string, unknown>;
}

export const FORMATS: Readonly<Record<BenchFormat, FormatSpec>> = {
  messages: {
    path: "/v1/messages",
    body: (model, stream) => ({
      model,
      max_tokens: MAX_TOKENS,
      system: SYSTEM_PROMPT,
      messages: [{ role: "user", content: USER_MESSAGE }],
      ...(stream ? { stream: true } : {}),
    }),
  },
  chat: {
    path: "/v1/chat/completions",
    body: (model, stream) => ({
      model,
      max_completion_tokens: MAX_TOKENS,
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: USER_MESSAGE },
      ],
      // Real streaming clients ask for usage; it is also what makes a gateway look at the last chunk.
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    }),
  },
  responses: {
    path: "/v1/responses",
    body: (model, stream) => ({
      model,
      max_output_tokens: MAX_TOKENS,
      instructions: SYSTEM_PROMPT,
      input: [{ role: "user", content: USER_MESSAGE }],
      ...(stream ? { stream: true } : {}),
    }),
  },
};

/** The same-format tier routes to the all-APIs model, so direct and bare ask for that id themselves. */
const UPSTREAM_MODEL = BENCH_MODELS.all;

/**
 * Direct and bare send what the gateway itself sends upstream, effort fields included (the tier's
 * default effort on its model, set by the gateway's own code). Otherwise the upstream would do
 * more work — signed thinking, reasoning items — for gateway requests than for the yardstick's,
 * on the same two cores, and that work is not the gateway's overhead.
 */
const BENCH_CONFIG = buildBenchConfig("http://unused");

function asForwarded(format: BenchFormat, body: Record<string, unknown>): Record<string, unknown> {
  const model = BENCH_CONFIG.models[UPSTREAM_MODEL]!;
  const forwarded: JsonObject = { ...body };
  SET_EFFORT[format](forwarded, BENCH_EFFORT, model);
  return forwarded;
}

interface TargetSpec {
  readonly baseUrl: (endpoints: TargetEndpoints) => string;
  readonly model: (format: BenchFormat) => string;
  readonly headers: (endpoints: TargetEndpoints, format: BenchFormat) => Record<string, string>;
}

const formatHeaders = (format: BenchFormat): Record<string, string> => (format === "messages" ? { "anthropic-version": "2023-06-01" } : {});

const keyHeaders = (key: string, format: BenchFormat): Record<string, string> =>
  format === "messages" ? { ...formatHeaders(format), "x-api-key": key } : { authorization: `Bearer ${key}` };

const gatewayHeaders = (e: TargetEndpoints, format: BenchFormat): Record<string, string> => keyHeaders(e.gatewayKey, format);

/** A fresh answer every time (the cache is skipped, the answer still stored): the miss path. */
const missHeaders = (key: string, format: BenchFormat): Record<string, string> => ({ ...keyHeaders(key, format), "cache-control": "no-cache" });

/** Only reachable when a `baseline` target was selected without a baseline gateway: a caller's bug, not a user's. */
function baselineOf(e: TargetEndpoints): { readonly url: string; readonly key: string } {
  if (!e.baseline) throw new Error("the baseline target needs a baseline gateway (--baseline <dir>)");
  return e.baseline;
}

export const TARGETS: Readonly<Record<BenchTarget, TargetSpec>> = {
  direct: { baseUrl: (e) => e.direct, model: () => UPSTREAM_MODEL, headers: (_e, format) => formatHeaders(format) },
  bare: { baseUrl: (e) => e.bare, model: () => UPSTREAM_MODEL, headers: (_e, format) => formatHeaders(format) },
  gateway: { baseUrl: (e) => e.gateway, model: () => SAME_FORMAT_TIER, headers: (e, format) => missHeaders(e.gatewayKey, format) },
  baseline: { baseUrl: (e) => baselineOf(e).url, model: () => SAME_FORMAT_TIER, headers: (e, format) => missHeaders(baselineOf(e).key, format) },
  cross: { baseUrl: (e) => e.gateway, model: (format) => CROSS_TIERS[format].tier, headers: (e, format) => missHeaders(e.gatewayKey, format) },
  cached: { baseUrl: (e) => e.gateway, model: () => SAME_FORMAT_TIER, headers: gatewayHeaders },
};

/** A gateway serves `gateway`, `cross` and `cached`, the baseline checkout's gateway `baseline`: they get the client's body as is. */
export const isGatewayTarget = (target: BenchTarget): boolean =>
  target === "gateway" || target === "baseline" || target === "cross" || target === "cached";

export interface ScenarioSelection {
  readonly formats: readonly BenchFormat[];
  readonly modes: readonly BenchMode[];
  readonly targets: readonly BenchTarget[];
}

/** Every selected cell, ordered format → mode → target so each report table's rows run back to back. */
export function buildScenarios(selection: ScenarioSelection, endpoints: TargetEndpoints): Scenario[] {
  const scenarios: Scenario[] = [];
  for (const format of selection.formats) {
    for (const mode of selection.modes) {
      for (const target of selection.targets) {
        const spec = TARGETS[target];
        const stream = mode === "stream";
        const body = FORMATS[format].body(spec.model(format), stream);
        scenarios.push({
          id: `${format}/${mode}/${target}`,
          format,
          mode,
          target,
          url: spec.baseUrl(endpoints) + FORMATS[format].path,
          headers: {
            "content-type": "application/json",
            ...(stream ? { accept: "text/event-stream" } : {}),
            ...spec.headers(endpoints, format),
          },
          body: JSON.stringify(isGatewayTarget(target) ? body : asForwarded(format, body)),
        });
      }
    }
  }
  return scenarios;
}
