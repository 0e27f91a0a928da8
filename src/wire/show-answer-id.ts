import type { WireFormat } from "../canonical/wire-format.ts";

/** How each API's own answer ids begin. */
export const ANSWER_ID_PREFIXES: Readonly<Record<WireFormat, string>> = { messages: "msg_", chat: "chatcmpl-", responses: "resp_" };

/**
 * The answer id a client of `format` is shown, in its API's own form (`msg_…`, `chatcmpl-…`,
 * `resp_…`). An answer translated from another API keeps the upstream's id after the prefix, so a
 * log line can still be matched with the provider's; characters outside `[A-Za-z0-9_-]` are
 * dropped, as no API's ids have them.
 */
export function showAnswerId(format: WireFormat, upstreamId: string): string {
  const prefix = ANSWER_ID_PREFIXES[format];
  if (upstreamId.startsWith(prefix)) return upstreamId;
  const cleaned = upstreamId.replace(/[^A-Za-z0-9_-]/g, "");
  return prefix + (cleaned === "" ? "gateway" : cleaned);
}
