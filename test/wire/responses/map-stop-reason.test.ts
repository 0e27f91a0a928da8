import { describe, expect, test } from "bun:test";
import { UNIFIED_STOP_REASONS } from "../../../src/canonical/stop-reason.ts";
import { decodeResponsesStopReason, encodeResponsesStopReason, type ResponsesOutcomeFacts } from "../../../src/wire/responses/map-stop-reason.ts";

describe("encodeResponsesStopReason covers every unified stop reason", () => {
  const expected: Record<(typeof UNIFIED_STOP_REASONS)[number], [string, string | null]> = {
    end_turn: ["completed", null],
    stop_sequence: ["completed", null],
    tool_use: ["completed", null],
    pause_turn: ["completed", null],
    max_tokens: ["incomplete", "max_output_tokens"],
    refusal: ["incomplete", "content_filter"],
    content_filter: ["incomplete", "content_filter"],
  };
  for (const unified of UNIFIED_STOP_REASONS) {
    test(unified, () => {
      const outcome = encodeResponsesStopReason({ unified, raw: null });
      expect<unknown>([outcome.status, outcome.incompleteDetails?.reason ?? null]).toEqual(expected[unified]);
    });
  }
});

describe("decodeResponsesStopReason", () => {
  const facts = (over: Partial<ResponsesOutcomeFacts>): ResponsesOutcomeFacts => ({ status: "completed", hasToolCalls: false, hasRefusal: false, ...over });
  const cases: { facts: ResponsesOutcomeFacts; unified: string; raw: string }[] = [
    { facts: facts({}), unified: "end_turn", raw: "completed" },
    { facts: facts({ hasToolCalls: true }), unified: "tool_use", raw: "completed" },
    { facts: facts({ hasRefusal: true }), unified: "refusal", raw: "completed" },
    { facts: facts({ status: "incomplete", incompleteReason: "max_output_tokens" }), unified: "max_tokens", raw: "incomplete:max_output_tokens" },
    { facts: facts({ status: "incomplete", incompleteReason: "content_filter" }), unified: "content_filter", raw: "incomplete:content_filter" },
    { facts: facts({ status: "incomplete", hasToolCalls: true }), unified: "max_tokens", raw: "incomplete" },
  ];
  for (const c of cases) {
    test(`${c.raw}${c.facts.hasToolCalls ? " + calls" : ""}${c.facts.hasRefusal ? " + refusal" : ""} → ${c.unified}`, () => {
      expect(decodeResponsesStopReason(c.facts)).toEqual({ unified: c.unified as never, raw: c.raw });
    });
  }
});
