import type { GatewayError } from "../../canonical/gateway-error.ts";
import { isJsonObject } from "../../canonical/json-object.ts";
import type { UpstreamAdapter } from "../../wire/upstream-adapter.ts";
import { classifyUpstreamError } from "../../wire/classify-upstream-error.ts";
import type { SseEvent } from "../../wire/sse-event.ts";

/** Error `type` / `code` values of the three APIs (and compatible servers) by what they mean. */
const OVERLOADED: ReadonlySet<unknown> = new Set(["overloaded_error", "service_unavailable_error", "server_is_overloaded", "slow_down"]);
const RATE_LIMITED: ReadonlySet<unknown> = new Set(["rate_limit_error", "rate_limit_exceeded", "insufficient_quota", "requests", "tokens"]);

/**
 * The upstream's own error event (as its API reads it: Messages `error`, a Chat `{"error": …}`
 * chunk, Responses `error` or `response.failed`) as the failure of the call, classified as the
 * same failure would be over HTTP: before anything was sent, an overloaded, rate-limited or
 * failing upstream is called again after a pause (transient), and another model may be tried in
 * any case. Undefined for any other event. Both paths use it for what arrives before the first
 * content, so they retry alike.
 */
export function classifyErrorEvent(adapter: UpstreamAdapter, event: SseEvent, parsed: unknown): GatewayError | undefined {
  if (!isJsonObject(parsed)) return undefined;
  const error = adapter.readErrorEvent(event.event, parsed);
  if (!error) return undefined;
  const status = error.kinds.some((kind) => OVERLOADED.has(kind)) ? 529 : error.kinds.some((kind) => RATE_LIMITED.has(kind)) ? 429 : 500;
  return classifyUpstreamError(status, JSON.stringify({ error: { message: error.message } }), null);
}
