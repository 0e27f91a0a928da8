import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WIRE_FORMATS, type WireFormat } from "../../src/canonical/wire-format.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import type { Truth } from "./answer-shape.ts";
import { ask, type ClientKind, type Outcome, type Target } from "./ask-clients.ts";
import { compareTranslated } from "./expect-answer.ts";
import { readRecording } from "./read-recording.ts";
import { replayConfig, TIER_OF_API } from "./replay-config.ts";
import { loadRecordings, type Recording } from "./recordings.ts";
import { startReplayUpstream, type ReplayUpstream } from "./start-replay-upstream.ts";

/**
 * Every recorded provider answer through the gateway, in every client format (the recording's own
 * format passes through, the other two are translated), read by the official SDK and by the AI SDK.
 * A pass-through answer must read exactly as the recording read directly, and read without a client
 * error where the client fails on the provider's own bytes (but for CLIENT_REFUSES); a translated
 * one must carry the recording's text, tool calls, thinking, stop reason and usage, or its failure.
 */
const RECORDINGS = loadRecordings();
const KINDS: readonly ClientKind[] = ["sdk", "ai-sdk"];
const CONCURRENCY = 12;

interface Case {
  readonly recording: Recording;
  readonly truth: Truth;
  readonly format: WireFormat;
  readonly kind: ClientKind;
}

const CASES: Case[] = RECORDINGS.flatMap((recording) => {
  const truth = readRecording(recording);
  return WIRE_FORMATS.flatMap((format) => KINDS.map((kind) => ({ recording, truth, format, kind })));
});

/**
 * Pass-through cases where the client refuses what the API really sent, and the gateway passes it
 * on as it came: reading it would take changing what the provider meant. Each is the client's own
 * failure on the provider's bytes too (checked below), and stays so through the gateway.
 */
const SEVERAL_MESSAGES =
  "several whole messages in one stream (each with its own id, stop reason tool_use and usage: turns of a tool loop); MessageStream holds one message per stream and fails at the second message_start, and merging them would turn the tool_use stops into one end_turn answer";
const SEVERAL_RESPONSES =
  "several whole responses in one stream (each created and completed with its own id: turns of a tool loop); ResponseStream holds one response per stream, and merging them would make several answers one";
const UNKNOWN_TO_AI_SDK = "an output item type the API sends that @ai-sdk/openai's response schema does not know (Invalid JSON response); dropping it would lose what the next turn needs";
const CLIENT_REFUSES: Readonly<Record<string, string>> = {
  "anthropic/anthropic-programmatic-tool-calling.1.chunks.txt messages sdk": SEVERAL_MESSAGES,
  "anthropic/anthropic-tool-search-bm25.1.chunks.txt messages sdk": SEVERAL_MESSAGES,
  "anthropic/anthropic-tool-search-deferred-bm25.chunks.txt messages sdk": SEVERAL_MESSAGES,
  "anthropic/anthropic-tool-search-deferred-regex.chunks.txt messages sdk": SEVERAL_MESSAGES,
  "anthropic/anthropic-tool-search-regex.1.chunks.txt messages sdk": SEVERAL_MESSAGES,
  "openai-responses/openai-reasoning-encrypted-content.1.chunks.txt responses sdk": SEVERAL_RESPONSES,
  "openai-responses/openai-shell-tool.1.chunks.txt responses sdk": SEVERAL_RESPONSES,
  "anthropic/anthropic-tool-search-deferred-bm25.2.json messages ai-sdk":
    "a tool_search_tool_result whose server_tool_use came in an earlier turn: generateText takes such a deferred result only for a declared provider tool that supports it (the caller's tools), else 'Tool call … not found'",
  "anthropic/anthropic-tool-search-deferred-regex.2.json messages ai-sdk":
    "a tool_search_tool_result whose server_tool_use came in an earlier turn: generateText takes such a deferred result only for a declared provider tool that supports it (the caller's tools), else 'Tool call … not found'",
  "openai-responses/openai-compaction.1.json responses ai-sdk": `${UNKNOWN_TO_AI_SDK}: compaction`,
  "openai-responses/programmatic-tool-calling.1.json responses ai-sdk": `${UNKNOWN_TO_AI_SDK}: program`,
  "openai-responses/programmatic-tool-calling.3.json responses ai-sdk": `${UNKNOWN_TO_AI_SDK}: program_output`,
  "openai-responses/openai-apply-patch-tool.1.chunks.txt responses sdk":
    "response.apply_patch_call_operation_diff.delta events, which the openai SDK's accumulator does not know ('Unhandled response stream event'); the AI SDK reads them, so they stay",
};

const keyOf = (c: Case): string => `${c.recording.file} ${c.format} ${c.kind}`;
const viaGateway = new Map<string, Outcome>();
const direct = new Map<string, Outcome>();
/** Translated whole answers: the `x-router-warning` header, by `<file> <format>`. */
const warnings = new Map<string, string | null>();

const PATHS: Readonly<Record<WireFormat, string>> = { messages: "/v1/messages", chat: "/v1/chat/completions", responses: "/v1/responses" };

/** The headers of a plain request for the recording in `format`, as curl would send it. */
async function warningHeader(target: Target, format: WireFormat, tier: string, file: string): Promise<string | null> {
  const text = `REPLAY:${file}`;
  const body =
    format === "messages"
      ? { model: tier, max_tokens: 1024, messages: [{ role: "user", content: text }] }
      : format === "chat"
        ? { model: tier, messages: [{ role: "user", content: text }] }
        : { model: tier, input: text, store: false };
  const response = await fetch(target.url + PATHS[format], {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": target.key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(body),
  });
  await response.arrayBuffer();
  return response.headers.get("x-router-warning");
}

let replay: ReplayUpstream;
let gw: TestGateway;

/** Runs `jobs` with at most CONCURRENCY at a time. */
async function pool(jobs: (() => Promise<void>)[]): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < jobs.length) await jobs[next++]!();
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
}

beforeAll(async () => {
  replay = await startReplayUpstream();
  gw = await startTestGateway({ fileConfig: replayConfig(replay.url), recordSim: false });
  const { key } = await gw.account("Enterprise");
  const gateway: Target = { url: gw.url, key };
  const upstream: Target = { url: replay.url, key: "unused" };
  const jobs = CASES.flatMap((c) => {
    const names = c.truth.kind === "answer" ? [...new Set(c.truth.answer.toolCalls.map((t) => t.name))] : [];
    const { file, stream, api } = c.recording;
    const run = (into: Map<string, Outcome>, target: Target, model: string) => async () => {
      into.set(keyOf(c), await ask(c.kind, c.format, target, model, file, stream, names));
    };
    const header = async () => {
      warnings.set(`${file} ${c.format}`, await warningHeader(gateway, c.format, TIER_OF_API[api], file));
    };
    if (c.format === api) return [run(viaGateway, gateway, TIER_OF_API[api]), run(direct, upstream, `recorded-${api}`)];
    return !stream && c.kind === "sdk" && c.truth.kind === "answer" ? [run(viaGateway, gateway, TIER_OF_API[api]), header] : [run(viaGateway, gateway, TIER_OF_API[api])];
  });
  await pool(jobs);
}, 600_000);

afterAll(async () => {
  await gw?.stop();
  await replay?.stop();
}, 30_000);

/**
 * The client's answer without what differs between two reads of the same bytes: the `model` it
 * names (the tier through the gateway, the model directly) and the ids the AI SDK makes up for sources.
 */
function withoutModel(answer: unknown): unknown {
  if (answer === null || typeof answer !== "object" || Array.isArray(answer)) return answer;
  const { model: _model, ...rest } = JSON.parse(JSON.stringify(answer)) as Record<string, unknown>;
  return withoutMadeUpIds(rest);
}

/** The AI SDK's own ids (16 letters and digits, new on every read), for sources, MCP calls and approvals. */
function withoutMadeUpIds(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutMadeUpIds);
  if (value === null || typeof value !== "object") return value;
  return Object.fromEntries(
    Object.entries(value).map(([key, v]) => [key, ["id", "toolCallId", "approvalId"].includes(key) && typeof v === "string" && /^[A-Za-z0-9]{16}$/.test(v) ? "made-up" : withoutMadeUpIds(v)]),
  );
}

/**
 * The status a caller of `format` gets for an upstream failure of `status`: an upstream's rate limit
 * or overload is every model being busy (529, which OpenAI-format callers know as 503); the rest as is.
 */
function statusFor(format: WireFormat, status: number): number {
  const busy = status === 429 || status === 529 || status === 503;
  return busy ? (format === "messages" ? 529 : 503) : status;
}

/** What is wrong with the answer a client got for this case; empty when it is right. */
function problems(c: Case): unknown[] {
  const got = viaGateway.get(keyOf(c))!;
  if (c.format === c.recording.api) {
    // Pass-through: the client reads the gateway's answer exactly as it reads the provider's.
    const own = direct.get(keyOf(c))!;
    const refused = CLIENT_REFUSES[keyOf(c)];
    if (!own.ok) {
      // A recorded failure (an error body or event, a stream cut short) fails through the gateway too,
      // and so does what the client refuses in what the API really sent.
      if (c.truth.kind === "error" || refused !== undefined) return got.ok ? [{ expected: `a failure, as directly: ${own.message}`, got: "an answer" }] : [];
      // Anything else the client trips on in the provider's bytes, the gateway's answer lets it read: the recording's answer.
      if (!got.ok) return [{ expected: "an answer (the client fails on the provider's own bytes, not on the gateway's)", got: got.message }];
      return compareTranslated(c.truth.answer, got.shape, c.kind, c.format);
    }
    if (refused !== undefined) return [{ expected: `the client to refuse this recording directly: ${refused}`, got: "an answer" }];
    if (!got.ok) return [{ expected: "an answer, as directly", got: got.message }];
    const out: unknown[] = [];
    if (!Bun.deepEquals(got.shape, own.shape)) out.push({ expected: own.shape, got: got.shape });
    if (!Bun.deepEquals(withoutModel(got.answer), withoutModel(own.answer))) out.push({ field: "answer", expected: withoutModel(own.answer), got: withoutModel(got.answer) });
    return out;
  }
  if (c.truth.kind === "error") {
    if (got.ok) return [{ expected: `a failure (${c.truth.status})`, got: "an answer" }];
    const status = statusFor(c.format, c.truth.status);
    return !c.truth.inStream && got.status !== status ? [{ field: "status", expected: status, got: got.status, message: got.message }] : [];
  }
  if (!got.ok) return [{ expected: "an answer", got: got.message, status: got.status }];
  const out: unknown[] = compareTranslated(c.truth.answer, got.shape, c.kind, c.format);
  // What the caller's format cannot hold is named in a header of a whole answer (docs/translation.md).
  const header = warnings.get(`${c.recording.file} ${c.format}`);
  if (header !== undefined) {
    const other = [...new Set(c.truth.answer.other)];
    const named = header === null ? [] : header.slice(header.indexOf(": ") + 2).split(", ");
    if (!Bun.deepEquals(named.filter((kind) => kind !== "citations"), other)) out.push({ field: "x-router-warning", expected: other, got: header });
  }
  return out;
}

afterAll(async () => {
  // REPLAY_REPORT=<file>: every case's problems in one JSON file, for reading many failures at once.
  const report = process.env.REPLAY_REPORT;
  if (!report) return;
  const failing = Object.fromEntries(CASES.map((c) => [keyOf(c), problems(c)]).filter(([, p]) => (p as unknown[]).length > 0));
  const ownFailures = Object.fromEntries([...direct].filter(([, o]) => !o.ok).map(([key, o]) => [key, o.ok ? "" : o.message]));
  await Bun.write(report, JSON.stringify({ failing, ownFailures }, null, 1));
});

describe.each(RECORDINGS.map((r) => [r.file, r] as const))("%s", (_file, recording) => {
  test.each(CASES.filter((c) => c.recording === recording).map((c) => [`${c.format} client, ${c.kind}`, c] as const))("%s", (_name, c) => {
    expect(problems(c)).toEqual([]);
  });
});

test("a whole translated answer names in x-router-warning what the caller's format cannot hold", () => {
  expect(warnings.get("anthropic/anthropic-web-search-tool.1.json chat")).toBe("dropped, no chat counterpart: server_tool_use, web_search_tool_result, citations");
  expect(warnings.get("openai-responses/openai-web-search-tool.1.json messages")).toBe("dropped, no messages counterpart: web_search_call");
  expect(warnings.get("anthropic/anthropic-text.json responses")).toBeNull();
});
