/**
 * The answer id a client is shown, in its own API's form (`msg_…`, `chatcmpl-…`, `resp_…`). An answer
 * translated from another API keeps the upstream's id after the prefix, so a log line can still be
 * matched with the provider's; characters outside `[A-Za-z0-9_-]` are dropped, as no API's ids have them.
 */
export function showAnswerId(prefix: string, upstreamId: string): string {
  if (upstreamId.startsWith(prefix)) return upstreamId;
  const cleaned = upstreamId.replace(/[^A-Za-z0-9_-]/g, "");
  return prefix + (cleaned === "" ? "gateway" : cleaned);
}
