import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { startSim, type SimServer } from "../../../src/sim/start-sim.ts";
import { chatStreamDecoder } from "../../../src/wire/chat/decode-stream.ts";
import { decodeSseText } from "./decode-sse-text.ts";
import { FIXTURE_REQUESTS, fetchChatStream } from "./fixture-requests.ts";

const fixture = (name: string): Promise<string> => Bun.file(new URL(`../../fixtures/chat/${name}.sse`, import.meta.url)).text();
const decode = (text: string): StreamEvent[] => decodeSseText(chatStreamDecoder, text);
const textOf = (events: StreamEvent[]): string => events.map((e) => (e.type === "text_delta" ? e.text : "")).join("");
const last = (events: StreamEvent[]): StreamEvent | undefined => events.at(-1);

/** Chat SSE text from chunk payloads. */
const sse = (...payloads: unknown[]): string => payloads.map((p) => `data: ${typeof p === "string" ? p : JSON.stringify(p)}\n\n`).join("");
const chunk = (delta: Record<string, unknown>, finish: string | null = null, extra: Record<string, unknown> = {}) => ({
  id: "chatcmpl-h",
  object: "chat.completion.chunk",
  created: 1,
  model: "up",
  choices: [{ index: 0, delta, finish_reason: finish }],
  ...extra,
});
const usageChunk = (usage: Record<string, unknown>) => ({ id: "chatcmpl-h", object: "chat.completion.chunk", created: 1, model: "up", choices: [], usage });

describe("chatStreamDecoder on recorded sim streams", () => {
  test("parallel tool calls: text block, then one block per call with fragments as they came, finish with usage", async () => {
    expect(decode(await fixture("parallel-tools"))).toEqual([
      { type: "start", id: "chatcmpl-452f74d72ecc1e3e", model: "sim-normal" },
      { type: "block_start", index: 0, block: { type: "text" } },
      { type: "text_delta", index: 0, text: "Calling get_weather, get_time." },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "tool_call", id: "call_452f74d72ecc1e3e0", name: "get_weather" } },
      { type: "tool_args_delta", index: 1, fragment: '{"city":"s' },
      { type: "tool_args_delta", index: 1, fragment: 'im_city","' },
      { type: "tool_args_delta", index: 1, fragment: 'days":1}' },
      { type: "block_start", index: 2, block: { type: "tool_call", id: "call_452f74d72ecc1e3e1", name: "get_time" } },
      { type: "tool_args_delta", index: 2, fragment: '{"zone"' },
      { type: "tool_args_delta", index: 2, fragment: ':"sim_z' },
      { type: "tool_args_delta", index: 2, fragment: 'one"}' },
      { type: "block_stop", index: 1 },
      { type: "block_stop", index: 2 },
      { type: "finish", stopReason: { unified: "tool_use", raw: "tool_calls" }, usage: { inputTokens: 79, outputTokens: 15, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
  });

  test("text: one text block, end_turn", async () => {
    const events = decode(await fixture("text"));
    expect(events.filter((e) => e.type === "block_start")).toEqual([{ type: "block_start", index: 0, block: { type: "text" } }]);
    expect(textOf(events)).toBe("Simulated reply from sim-normal: Explain the release notes from the request with");
    expect(last(events)).toMatchObject({ type: "finish", stopReason: { unified: "end_turn", raw: "stop" }, usage: { inputTokens: 13, outputTokens: 12 } });
  });

  test("reasoning and cached usage: reasoning tokens counted in the output, cached tokens in the input", async () => {
    expect(last(decode(await fixture("reasoning-usage")))).toEqual({
      type: "finish",
      stopReason: { unified: "end_turn", raw: "stop" },
      usage: { inputTokens: 15, outputTokens: 54, cacheReadTokens: 10, cacheWriteTokens: 0, reasoningTokens: 48 },
    });
  });

  test("no usage chunk: finish at [DONE] with zero usage", async () => {
    expect(last(decode(await fixture("no-usage")))).toMatchObject({ type: "finish", usage: { inputTokens: 0, outputTokens: 0 } });
  });

  test("a cut stream ends in an error, never a finish", async () => {
    const events = decode(await fixture("cut"));
    expect(events.some((e) => e.type === "finish")).toBe(false);
    expect(last(events)).toEqual({ type: "error", error: { status: 502, type: "upstream_error", message: "upstream stream ended before the answer finished" } });
  });
});

describe("chatStreamDecoder on hand-made streams of other Chat servers", () => {
  test("reasoning_content deltas become a thinking block that stops when text starts", () => {
    const events = decode(
      sse(
        chunk({ role: "assistant", content: null, reasoning_content: "" }),
        chunk({ reasoning_content: "Let me " }),
        chunk({ reasoning_content: "think." }),
        chunk({ content: "Answer." }),
        chunk({}, "stop"),
        usageChunk({ prompt_tokens: 5, completion_tokens: 9, completion_tokens_details: { reasoning_tokens: 4 } }),
        "[DONE]",
      ),
    );
    expect(events).toEqual([
      { type: "start", id: "chatcmpl-h", model: "up" },
      { type: "block_start", index: 0, block: { type: "thinking" } },
      { type: "thinking_delta", index: 0, text: "Let me " },
      { type: "thinking_delta", index: 0, text: "think." },
      { type: "block_stop", index: 0 },
      { type: "block_start", index: 1, block: { type: "text" } },
      { type: "text_delta", index: 1, text: "Answer." },
      { type: "block_stop", index: 1 },
      { type: "finish", stopReason: { unified: "end_turn", raw: "stop" }, usage: { inputTokens: 5, outputTokens: 9, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 4 } },
    ]);
  });

  test("usage on the finish chunk itself finishes at once; [DONE] after it adds nothing", () => {
    const events = decode(sse(chunk({ content: "x" }), chunk({}, "length", { usage: { prompt_tokens: 1, completion_tokens: 1 } }), "[DONE]"));
    expect(events.filter((e) => e.type === "finish")).toHaveLength(1);
    expect(last(events)).toMatchObject({ type: "finish", stopReason: { unified: "max_tokens", raw: "length" } });
  });

  test("a refusal delta is text and the answer ends as a refusal", () => {
    const events = decode(sse(chunk({ refusal: "I can't." }), chunk({}, "stop"), "[DONE]"));
    expect(textOf(events)).toBe("I can't.");
    expect(last(events)).toMatchObject({ type: "finish", stopReason: { unified: "refusal", raw: "stop" } });
  });

  test("a tool call whose first fragment already carries arguments, and one without an index", () => {
    const events = decode(
      sse(
        chunk({ tool_calls: [{ index: 0, id: "c0", type: "function", function: { name: "f", arguments: '{"a":1}' } }] }),
        chunk({ tool_calls: [{ id: "c1", type: "function", function: { name: "g", arguments: "{" } }] }),
        chunk({ tool_calls: [{ function: { arguments: "}" } }] }),
        chunk({}, "tool_calls"),
        "[DONE]",
      ),
    );
    expect(events.filter((e) => e.type === "block_start").map((e) => e.type === "block_start" && e.block)).toEqual([
      { type: "tool_call", id: "c0", name: "f" },
      { type: "tool_call", id: "c1", name: "g" },
    ]);
    expect(events.filter((e) => e.type === "tool_args_delta")).toEqual([
      { type: "tool_args_delta", index: 0, fragment: '{"a":1}' },
      { type: "tool_args_delta", index: 1, fragment: "{" },
      { type: "tool_args_delta", index: 1, fragment: "}" },
    ]);
  });

  const failures: [string, string, { status: number; type: string }][] = [
    ["a malformed event", sse(chunk({ content: "a" })) + 'data: {"type": broken\n\n', { status: 502, type: "upstream_error" }],
    ["an error chunk", sse(chunk({ content: "a" }), { error: { message: "Overloaded", type: "service_unavailable_error", code: null } }), { status: 529, type: "overloaded_error" }],
    ["a rate-limit error chunk", sse({ error: { message: "slow down", type: "requests", code: "rate_limit_exceeded" } }), { status: 429, type: "rate_limit_error" }],
    ["[DONE] before any finish reason", sse(chunk({ content: "a" }), "[DONE]"), { status: 502, type: "upstream_error" }],
  ];
  for (const [name, text, error] of failures) {
    test(`${name} → one error event and nothing after it`, () => {
      const events = decode(`${text}${sse(chunk({ content: "late" }), chunk({}, "stop"), "[DONE]")}`);
      expect(events.filter((e) => e.type === "error")).toHaveLength(1);
      expect(last(events)).toMatchObject({ type: "error", error });
      expect(events.some((e) => e.type === "finish")).toBe(false);
    });
  }

  test("a finished answer whose [DONE] went missing still finishes at end()", () => {
    expect(last(decode(sse(chunk({ content: "a" }), chunk({}, "stop"))))).toMatchObject({ type: "finish" });
  });

  test("an Azure-style opening chunk without id or choices is skipped", () => {
    const azure = { id: "", object: "", created: 0, model: "", choices: [], prompt_filter_results: [{ prompt_index: 0 }] };
    const events = decode(sse(azure, chunk({ content: "a" }), chunk({}, "stop"), "[DONE]"));
    expect(events[0]).toEqual({ type: "start", id: "chatcmpl-h", model: "up" });
  });

  test("comment lines and empty events are skipped", () => {
    const events = decode(`: keep-alive\n\n${sse(chunk({ content: "a" }), chunk({}, "stop"), "[DONE]")}`);
    expect(events[0]).toMatchObject({ type: "start" });
    expect(textOf(events)).toBe("a");
  });
});

describe("the simulated upstream still produces the recorded streams", () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim();
  }, 30_000);
  afterAll(() => sim.stop(), 30_000);

  for (const name of Object.keys(FIXTURE_REQUESTS)) {
    test(name, async () => {
      const fresh = decode(await fetchChatStream(sim.url, FIXTURE_REQUESTS[name]!));
      expect(fresh).toEqual(decode(await fixture(name)));
      expect(["finish", "error"]).toContain(last(fresh)?.type ?? "none");
    });
  }
});
