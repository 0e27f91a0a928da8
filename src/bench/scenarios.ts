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

import { wireApi } from "../wire/wire-apis.ts";
import { BENCH_EFFORT, BENCH_MODELS, buildBenchConfig, CROSS_TIERS, SAME_FORMAT_TIER } from "./build-bench-config.ts";
import type { JsonObject } from "../canonical/json-object.ts";
import { buildConversationBody } from "./build-conversation-body.ts";

export const FORMAT_NAMES = ["messages", "chat", "responses"] as const;
export const MODE_NAMES = ["json", "stream"] as const;
// `baseline` right after `gateway`: each round runs the two back to back, under the same outside load.
export const TARGET_NAMES = ["direct", "bare", "gateway", "baseline", "cross", "cached"] as const;

export type BenchFormat = (typeof FORMAT_NAMES)[number];
export type BenchMode = (typeof MODE_NAMES)[number];
export type BenchTarget = (typeof TARGET_NAMES)[number];

/**
 * `path`: the issue's rows (a ~1 KB request, a 20-event answer); `body`: big conversations, timed
 * one request at a time; `long-stream`: a 2,000-event answer in one burst; `trickled-stream`: a
 * 200-event answer an event a millisecond, as a model streams; `soak`: the path rows' requests,
 * each a new conversation, for minutes on end.
 */
export type ScenarioKind = "path" | "body" | "long-stream" | "trickled-stream" | "soak";
/** `load`: `--connections` at once, for CPU per request and p99 under load; `single`: one connection. */
export type Pass = "load" | "single";

export interface Scenario {
  /** "messages/stream/gateway", "body/1m/gateway", "long-stream/messages/cross": unique, the key in JSON output. */
  readonly id: string;
  readonly kind: ScenarioKind;
  /** The body case (`BODY_CASES`) of a body scenario; "" otherwise. */
  readonly bodyCase: string;
  readonly format: BenchFormat;
  readonly mode: BenchMode;
  readonly target: BenchTarget;
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string;
  readonly passes: readonly Pass[];
  /** Unmeasured requests first; fewer for the heavy scenarios, whose requests take milliseconds. */
  readonly warmupRequests: number;
  /**
   * Text of the body (once in it) that each request replaces with a number of its own, so every
   * request is a new task and a new conversation: a new routing decision, pin and cache entry.
   */
  readonly varyMarker?: string | undefined;
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

/** What the user says, and how long the answer may be: the path rows' question, or a directive for the sim. */
interface Ask {
  readonly text: string;
  readonly maxTokens: number;
}

const PATH_ASK: Ask = { text: USER_MESSAGE, maxTokens: MAX_TOKENS };

interface FormatSpec {
  readonly path: string;
  readonly body: (model: string, stream: boolean, ask?: Ask) => Record<string, unknown>;
}

export const FORMATS: Readonly<Record<BenchFormat, FormatSpec>> = {
  messages: {
    path: "/v1/messages",
    body: (model, stream, ask = PATH_ASK) => ({
      model,
      max_tokens: ask.maxTokens,
      system: SYSTEM_PROMPT,
      messages: [{ role: "user", content: ask.text }],
      ...(stream ? { stream: true } : {}),
    }),
  },
  chat: {
    path: "/v1/chat/completions",
    body: (model, stream, ask = PATH_ASK) => ({
      model,
      max_completion_tokens: ask.maxTokens,
      messages: [
        { role: "system", content: SYSTEM_PROMPT },
        { role: "user", content: ask.text },
      ],
      // Real streaming clients ask for usage; it is also what makes a gateway look at the last chunk.
      ...(stream ? { stream: true, stream_options: { include_usage: true } } : {}),
    }),
  },
  responses: {
    path: "/v1/responses",
    body: (model, stream, ask = PATH_ASK) => ({
      model,
      max_output_tokens: ask.maxTokens,
      instructions: SYSTEM_PROMPT,
      input: [{ role: "user", content: ask.text }],
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

export function asForwarded(format: BenchFormat, body: Record<string, unknown>): Record<string, unknown> {
  const model = BENCH_CONFIG.models[UPSTREAM_MODEL]!;
  const forwarded: JsonObject = { ...body };
  wireApi(format).setEffort(forwarded, BENCH_EFFORT, model);
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
  /** Whether the one-connection pass runs for the path rows. */
  readonly latencySec: number;
  readonly warmupRequests: number;
}

const headersFor = (target: BenchTarget, format: BenchFormat, stream: boolean, endpoints: TargetEndpoints): Record<string, string> => ({
  "content-type": "application/json",
  ...(stream ? { accept: "text/event-stream" } : {}),
  ...TARGETS[target].headers(endpoints, format),
});

function scenario(
  fields: Omit<Scenario, "url" | "headers" | "body">,
  endpoints: TargetEndpoints,
  body: Record<string, unknown>,
): Scenario {
  const stream = fields.mode === "stream";
  return {
    ...fields,
    url: TARGETS[fields.target].baseUrl(endpoints) + FORMATS[fields.format].path,
    headers: headersFor(fields.target, fields.format, stream, endpoints),
    body: JSON.stringify(isGatewayTarget(fields.target) ? body : asForwarded(fields.format, body)),
  };
}

/** The path rows: every selected cell, ordered format → mode → target so each row's targets run back to back. */
export function buildScenarios(selection: ScenarioSelection, endpoints: TargetEndpoints): Scenario[] {
  const scenarios: Scenario[] = [];
  const passes: readonly Pass[] = selection.latencySec > 0 ? ["load", "single"] : ["load"];
  for (const format of selection.formats) {
    for (const mode of selection.modes) {
      for (const target of selection.targets) {
        const body = FORMATS[format].body(TARGETS[target].model(format), mode === "stream");
        scenarios.push(
          scenario({ id: `${format}/${mode}/${target}`, kind: "path", bodyCase: "", format, mode, target, passes, warmupRequests: selection.warmupRequests }, endpoints, body),
        );
      }
    }
  }
  return scenarios;
}

/** A big-conversation case: its id, what it holds, and its size. */
export interface BodyCase {
  readonly id: string;
  readonly label: string;
  /** 0: the path rows' own small request, the point the slope starts from. */
  readonly targetBytes: number;
  readonly images: boolean;
}

export const BODY_CASES: readonly BodyCase[] = [
  { id: "1k", label: "the path rows' request", targetBytes: 0, images: false },
  { id: "100k", label: "Claude-Code-like, 100 KB", targetBytes: 100 * 1024, images: false },
  { id: "1m", label: "Claude-Code-like, 1 MB", targetBytes: 1024 * 1024, images: false },
  { id: "1m-images", label: "Claude-Code-like, 1 MB with base64 images", targetBytes: 1024 * 1024, images: true },
];

export const BODY_TARGETS: readonly BenchTarget[] = ["direct", "bare", "gateway"];

/**
 * The big-conversation scenarios: Messages, same-format, JSON, one connection (the added p50 over
 * the direct call is a latency without queueing). Direct and bare send what the gateway forwards;
 * with `baseline`, the baseline checkout's gateway gets the gateway's request right after it.
 */
export function buildBodyScenarios(endpoints: TargetEndpoints, warmupRequests: number, baseline = false): Scenario[] {
  const scenarios: Scenario[] = [];
  for (const bodyCase of BODY_CASES) {
    for (const target of baseline ? [...BODY_TARGETS, "baseline" as const] : BODY_TARGETS) {
      const model = TARGETS[target].model("messages");
      const body =
        bodyCase.targetBytes === 0
          ? FORMATS.messages.body(model, false)
          : buildConversationBody({ targetBytes: bodyCase.targetBytes, images: bodyCase.images, model, stream: false, maxTokens: MAX_TOKENS });
      // A 1 MB request takes milliseconds: a few dozen warm the path as well as hundreds of small ones.
      const warmup = bodyCase.targetBytes >= 512 * 1024 ? Math.min(warmupRequests, 30) : Math.min(warmupRequests, 100);
      scenarios.push(
        scenario(
          { id: `body/${bodyCase.id}/${target}`, kind: "body", bodyCase: bodyCase.id, format: "messages", mode: "json", target, passes: ["single"], warmupRequests: warmup },
          endpoints,
          body,
        ),
      );
    }
  }
  return scenarios;
}

/** The long answer: 6,000 words come as 2,000 text deltas (three words each). */
export const LONG_STREAM_WORDS = 6_000;
const LONG_ASK: Ask = { text: `[sim words=${LONG_STREAM_WORDS}] Tell me the whole story.`, maxTokens: 8_192 };

/**
 * The trickled answer: 600 words as 200 text deltas, the simulated upstream sending each event on
 * its own a millisecond after the last. The long stream's events come in one burst, so the gateway
 * reads them a few reads at a time; a model's come one by one, and each costs a read and a write.
 */
export const TRICKLED_STREAM_WORDS = 600;
export const TRICKLED_STREAM_GAP_MS = 1;
const TRICKLED_ASK: Ask = { text: `[sim words=${TRICKLED_STREAM_WORDS} gapMs=${TRICKLED_STREAM_GAP_MS}] Tell me the story.`, maxTokens: 2_048 };

/**
 * A 2,000-event answer streamed through the translated path (`cross`), and through the bare proxy
 * in the client's format; `gateway` too when selected (same-format, for comparison); `baseline`,
 * the baseline checkout's gateway, through the same translated path as `cross`. With
 * `trickled-stream`, the trickled answer instead.
 */
export function buildLongStreamScenarios(
  formats: readonly BenchFormat[],
  targets: readonly BenchTarget[],
  endpoints: TargetEndpoints,
  warmupRequests: number,
  kind: Extract<ScenarioKind, "long-stream" | "trickled-stream"> = "long-stream",
): Scenario[] {
  const scenarios: Scenario[] = [];
  const ask = kind === "long-stream" ? LONG_ASK : TRICKLED_ASK;
  for (const format of formats) {
    for (const target of targets) {
      const model = target === "baseline" ? TARGETS.cross.model(format) : TARGETS[target].model(format);
      const body = FORMATS[format].body(model, true, ask);
      scenarios.push(
        scenario(
          { id: `${kind}/${format}/${target}`, kind, bodyCase: "", format, mode: "stream", target, passes: ["load"], warmupRequests: Math.min(warmupRequests, 20) },
          endpoints,
          body,
        ),
      );
    }
  }
  return scenarios;
}

/**
 * What a load generator puts first in place of a varying scenario's marker, new for each of its
 * runs: with the request's own number after it, no run repeats another's bodies.
 */
export const newRunText = (): string => `${crypto.randomUUID().slice(0, 8)}-`;

/** A varying scenario's body before and after its marker; undefined for a body sent as it is. */
export function varyingBody(scenario: Scenario): { readonly head: string; readonly tail: string } | undefined {
  const marker = scenario.varyMarker;
  const cut = marker === undefined ? -1 : scenario.body.indexOf(marker);
  return cut < 0 ? undefined : { head: scenario.body.slice(0, cut), tail: scenario.body.slice(cut + marker!.length) };
}

/** What each soak request replaces with its own number. */
const SOAK_MARKER = "#soak-conversation#";
const SOAK_ASK: Ask = { text: `Conversation ${SOAK_MARKER}. ${USER_MESSAGE}`, maxTokens: MAX_TOKENS };

/**
 * The soak's requests: the path rows' four (Messages, same-format and translated, JSON and
 * stream), each request a conversation never seen before, as a gateway serving many agents gets
 * them: every keyed store (routing decisions, pins, the response cache) takes a new entry each
 * request, so their bounds are what holds the memory flat.
 */
export function buildSoakScenarios(endpoints: TargetEndpoints): Scenario[] {
  const scenarios: Scenario[] = [];
  for (const mode of MODE_NAMES) {
    for (const target of ["gateway", "cross"] as const) {
      const body = FORMATS.messages.body(TARGETS[target].model("messages"), mode === "stream", SOAK_ASK);
      scenarios.push(
        scenario({ id: `soak/messages/${mode}/${target}`, kind: "soak", bodyCase: "", format: "messages", mode, target, passes: ["load"], warmupRequests: 0, varyMarker: SOAK_MARKER }, endpoints, body),
      );
    }
  }
  return scenarios;
}
