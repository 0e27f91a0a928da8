import { GatewayError } from "../../canonical/gateway-error.ts";
import { classifyUpstreamError, upstreamErrorMessage } from "../classify-upstream-error.ts";
import type { SseEvent } from "../sse/read-first-event.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

/** An upstream event that reports a failure instead of content: each API's in-stream error shapes. */
function inStreamFailure(event: SseEvent, parsed: unknown): GatewayError | undefined {
  if (!isJsonObject(parsed)) return undefined;
  const type = parsed.type;
  if (event.event === "error" || type === "error" || type === "response.failed" || (type === undefined && "error" in parsed)) {
    const inner = isJsonObject(parsed.error) ? parsed.error : isJsonObject(parsed.response) ? parsed.response.error : undefined;
    const kind = isJsonObject(inner) ? (inner.type ?? inner.code) : undefined;
    const status = kind === "overloaded_error" || kind === "service_unavailable_error" ? 529 : kind === "rate_limit_error" ? 429 : 500;
    return classifyUpstreamError(status, JSON.stringify({ error: { message: upstreamErrorMessage(parsed) ?? upstreamErrorMessage(parsed.response) } }), null);
  }
  return undefined;
}

/** Checks the first event before anything is committed to the client: a failure here may still fail over. */
export function checkFirstEvent(event: SseEvent): void {
  if (event.data === "[DONE]") throw new GatewayError(502, "api_error", "upstream stream ended before any content", { retryable: true });
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.data);
  } catch {
    throw new GatewayError(502, "api_error", "upstream sent a malformed first event", { retryable: true });
  }
  const failure = inStreamFailure(event, parsed);
  if (failure) throw failure;
}

