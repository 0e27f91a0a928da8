import { describe, expect, test } from "bun:test";
import type { StopReason } from "../../../src/canonical/stop-reason.ts";
import { decodeMessagesStopReason, encodeMessagesStopReason } from "../../../src/wire/messages/map-stop-reason.ts";
import type { MessagesStopReason } from "../../../src/wire/messages/shapes.ts";

describe("decodeMessagesStopReason", () => {
  const cases: [unknown, unknown, StopReason][] = [
    ["end_turn", null, { unified: "end_turn", raw: "end_turn" }],
    ["max_tokens", null, { unified: "max_tokens", raw: "max_tokens" }],
    ["stop_sequence", "###", { unified: "stop_sequence", raw: "stop_sequence", stopSequence: "###" }],
    ["stop_sequence", null, { unified: "stop_sequence", raw: "stop_sequence" }],
    ["tool_use", null, { unified: "tool_use", raw: "tool_use" }],
    ["refusal", null, { unified: "refusal", raw: "refusal" }],
    ["pause_turn", null, { unified: "pause_turn", raw: "pause_turn" }],
    ["model_context_window_exceeded", null, { unified: "max_tokens", raw: "model_context_window_exceeded" }],
    ["something_new", null, { unified: "end_turn", raw: "something_new" }],
    // A name every object inherits is not a stop reason either.
    ["constructor", null, { unified: "end_turn", raw: "constructor" }],
    [null, null, { unified: "end_turn", raw: null }],
  ];
  test.each(cases)("%p → unified", (raw, sequence, expected) => {
    expect(decodeMessagesStopReason(raw, sequence)).toEqual(expected);
  });
});

describe("encodeMessagesStopReason", () => {
  const cases: [StopReason, MessagesStopReason, string | null][] = [
    [{ unified: "end_turn", raw: "stop" }, "end_turn", null],
    [{ unified: "max_tokens", raw: "length" }, "max_tokens", null],
    [{ unified: "max_tokens", raw: "incomplete:max_output_tokens" }, "max_tokens", null],
    [{ unified: "max_tokens", raw: "model_context_window_exceeded" }, "model_context_window_exceeded", null],
    [{ unified: "stop_sequence", raw: "stop_sequence", stopSequence: "END" }, "stop_sequence", "END"],
    [{ unified: "stop_sequence", raw: null }, "stop_sequence", null],
    [{ unified: "tool_use", raw: "tool_calls" }, "tool_use", null],
    [{ unified: "refusal", raw: "refusal" }, "refusal", null],
    [{ unified: "pause_turn", raw: "pause_turn" }, "pause_turn", null],
    [{ unified: "content_filter", raw: "content_filter" }, "refusal", null],
    [{ unified: "content_filter", raw: "incomplete:content_filter" }, "refusal", null],
    // A raw Messages value with a different meaning than the unified one is not trusted.
    [{ unified: "end_turn", raw: "tool_use" }, "end_turn", null],
  ];
  test.each(cases)("case %#: → %s", (stop, reason, sequence) => {
    expect(encodeMessagesStopReason(stop)).toEqual({ stop_reason: reason, stop_sequence: sequence });
  });

  test("every Messages value survives a round trip", () => {
    for (const raw of ["end_turn", "max_tokens", "stop_sequence", "tool_use", "refusal", "pause_turn", "model_context_window_exceeded"] as const) {
      expect(encodeMessagesStopReason(decodeMessagesStopReason(raw, "x")).stop_reason).toBe(raw);
    }
  });
});
