import type { WireFormat } from "../canonical/wire-format.ts";
import { stripStreamMembers } from "./strip-stream-members.ts";

/**
 * The response-cache key of a request: the account, the endpoint and the body as the client sent
 * it, minus `stream` and `stream_options` (a hit is replayed as JSON or as a stream, as the new
 * request asks). The account id leads the key in clear, so two accounts can never share an entry,
 * whatever the hash does. Compute it before the pipeline rewrites `model` or the effort fields.
 *
 * With `sent`, the body's text as it came, the hash is over that text (less the stream members),
 * not over a serialisation of the parsed body: one pass of a native hash instead of a walk of
 * every message. Text as SDKs send it (compact) gives the very key the parsed body gives; the same
 * body sent with other whitespace or escapes gets a key of its own (a miss, never a wrong hit).
 */
export function buildResponseCacheKey(accountId: string, endpoint: WireFormat, body: Readonly<Record<string, unknown>>, sent?: string): string {
  const text = (sent === undefined ? undefined : stripStreamMembers(sent, body)) ?? serializeWithoutStream(body);
  return `${accountId}:${endpoint}:${text.length.toString(36)}:${Bun.hash.wyhash(text).toString(36)}`;
}

function serializeWithoutStream(body: Readonly<Record<string, unknown>>): string {
  const { stream: _stream, stream_options: _streamOptions, ...rest } = body;
  return JSON.stringify(rest);
}

/**
 * What the request's `cache-control` allows: `no-cache` skips the lookup (a fresh answer, which is
 * then stored), `no-store` also keeps the answer out of the cache.
 */
export function readCacheControl(headers: Headers): { readonly lookup: boolean; readonly store: boolean } {
  const value = headers.get("cache-control");
  if (!value) return LOOKUP_AND_STORE;
  const lower = value.toLowerCase();
  const noStore = lower.includes("no-store");
  return { lookup: !noStore && !lower.includes("no-cache"), store: !noStore };
}

const LOOKUP_AND_STORE = { lookup: true, store: true } as const;
