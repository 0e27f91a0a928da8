import { describe, expect, test } from "bun:test";
import { classifyUpstreamError } from "../../src/wire/classify-upstream-error.ts";
import { refusesThinkingHistory } from "../../src/pipeline/refuses-thinking-history.ts";

const anthropic400 = (message: string) => classifyUpstreamError(400, JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }), null);

describe("refusesThinkingHistory", () => {
  test("the Messages API's refusals of a history's thinking", () => {
    for (const message of [
      "messages.1.content.0: Invalid `signature` in `thinking` block",
      "messages.3.content.0.thinking: each thinking block must contain thinking",
      "messages.5.content: `thinking` or `redacted_thinking` blocks in the latest assistant message cannot be modified. These blocks must remain as they were in the original response.",
    ]) {
      expect(refusesThinkingHistory(anthropic400(message))).toBe(true);
    }
  });

  test("other refusals, and failures that are not refusals, are not", () => {
    expect(refusesThinkingHistory(anthropic400("max_tokens: Field required"))).toBe(false);
    expect(refusesThinkingHistory(anthropic400("thinking.budget_tokens: Input should be greater than or equal to 1024"))).toBe(false);
    // A 5xx that happens to name a signature is a failure of the model, for failover to handle.
    expect(refusesThinkingHistory(classifyUpstreamError(500, JSON.stringify({ error: { message: "signature service down" } }), null))).toBe(false);
  });
});
