/**
 * The id of a Responses answer as the client sees it, so that a later request carrying only
 * `previous_response_id` finds its conversation (pin) under it. The response object's id,
 * `resp_…`, comes before any item's (those have other prefixes): it is the first key of a JSON
 * answer and sits inside the first event (`response.created`) of a stream.
 */

const RESPONSE_ID = /"id"\s*:\s*"(resp_[^"]+)"/;
/** Far enough for the head of any answer or first event; the rest is never read. */
const SCAN_CHARS = 8_192;

export function readResponseId(answer: string | Uint8Array): string | undefined {
  const head = typeof answer === "string" ? answer.slice(0, SCAN_CHARS) : new TextDecoder().decode(answer.subarray(0, SCAN_CHARS));
  return RESPONSE_ID.exec(head)?.[1];
}
