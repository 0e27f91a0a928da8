import type { GatewayError } from "../canonical/gateway-error.ts";

/**
 * What a Messages upstream says when the thinking in a request's history is not its own: "Invalid
 * `signature` in `thinking` block", "each thinking block must contain thinking", "thinking blocks
 * in the latest assistant message cannot be modified".
 */
// `\x60` is a backquote: "`thinking` or `redacted_thinking` blocks".
const THINKING_REFUSAL = /signature|thinking\x60? blocks?\b/i;

/**
 * Whether an upstream refused a request (400) for the thinking blocks in its history: signed by
 * another model, as when the conversation's pin was lost (expired, evicted, the process
 * restarted) and nothing told the gateway that another model had answered before.
 */
export function refusesThinkingHistory(error: GatewayError): boolean {
  return error.status === 400 && !error.retryable && THINKING_REFUSAL.test(error.message);
}
