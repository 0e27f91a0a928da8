import { describe, expect, test } from "bun:test";
import type { UnifiedStopReason } from "../../../src/canonical/stop-reason.ts";
import { UNIFIED_STOP_REASONS } from "../../../src/canonical/stop-reason.ts";
import { decodeChatStopReason, encodeChatStopReason } from "../../../src/wire/chat/map-stop-reason.ts";
import type { ChatFinishReason } from "../../../src/wire/chat/shapes.ts";

describe("canonical stop reason → Chat finish_reason", () => {
  const table: [UnifiedStopReason, ChatFinishReason][] = [
    ["end_turn", "stop"],
    ["stop_sequence", "stop"],
    ["pause_turn", "stop"],
    ["max_tokens", "length"],
    ["tool_use", "tool_calls"],
    ["refusal", "content_filter"],
    ["content_filter", "content_filter"],
  ];
  test("the table covers every unified value", () => {
    expect(table.map(([u]) => u).sort()).toEqual([...UNIFIED_STOP_REASONS].sort());
  });
  for (const [unified, chat] of table) {
    test(`${unified} → ${chat}`, () => expect(encodeChatStopReason({ unified, raw: null })).toBe(chat));
  }
});

describe("Chat finish_reason → canonical stop reason", () => {
  const table: [string | null, boolean, UnifiedStopReason][] = [
    ["stop", false, "end_turn"],
    ["length", false, "max_tokens"],
    ["tool_calls", false, "tool_use"],
    ["function_call", false, "tool_use"],
    ["content_filter", false, "content_filter"],
    ["stop", true, "refusal"],
    [null, false, "end_turn"],
    ["eos", false, "end_turn"],
  ];
  for (const [raw, refused, unified] of table) {
    test(`${raw}${refused ? " with a refusal" : ""} → ${unified}, raw kept`, () => {
      expect(decodeChatStopReason(raw, refused)).toEqual({ unified, raw });
    });
  }
  test("every Chat value survives the round trip through the canonical form", () => {
    for (const raw of ["stop", "length", "tool_calls", "content_filter"]) expect(encodeChatStopReason(decodeChatStopReason(raw))).toBe(raw as never);
  });
});
