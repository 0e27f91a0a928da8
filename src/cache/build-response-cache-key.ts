import { hasBytesAt } from "../canonical/has-bytes-at.ts";
import { MEMBER_OFFSETS } from "../canonical/member-offsets.ts";
import type { WireFormat } from "../canonical/wire-format.ts";

/** A request body's bytes as the client sent them, and where its top-level members lie. */
export interface KeyedBytes {
  readonly bytes: Uint8Array;
  /** The object's members in `bytes`, flat, MEMBER_OFFSETS numbers each; absent when not known. */
  readonly members: readonly number[] | undefined;
}

/** The top-level members a cached answer does not depend on: it is replayed as JSON or as a stream, as each request asks. */
const STREAM_MEMBERS = new Set(["stream", "stream_options"]);
const QUOTED_STREAM_MEMBERS = [...STREAM_MEMBERS].map((name) => Buffer.from(JSON.stringify(name)));

/** Whether the key at [start, end) of `bytes` is a stream member's, written plainly (an escaped spelling is hashed: a miss at worst). */
const isStreamMember = (bytes: Uint8Array, start: number, end: number): boolean =>
  QUOTED_STREAM_MEMBERS.some((quoted) => quoted.length === end - start && hasBytesAt(bytes, start, quoted));

/**
 * The response-cache key of a request: the account, the endpoint and the body as the client sent
 * it, minus `stream` and `stream_options` wherever they are (a hit is replayed as JSON or as a
 * stream, as the new request asks). The account id leads the key in clear, so two accounts can
 * never share an entry, whatever the hash does. Compute it before the pipeline rewrites `model`
 * or the effort fields.
 *
 * The hash runs over the body's top-level members one after another (`"key":value`, each
 * seeding the next), never over a serialisation of the whole body: with `sent`, the bytes as they
 * came, each member is hashed as the client wrote it, so a 1 MB conversation costs one pass of a
 * native hash and no walk of its messages, wherever its `stream` member sits. A body as SDKs send
 * it (compact) gives the very key the parsed body gives (a string is hashed as its UTF-8, and its
 * size counted so); the same body sent with other spacing or escapes gets a key of its own (a
 * miss, never a wrong hit).
 */
export function buildResponseCacheKey(accountId: string, endpoint: WireFormat, body: Readonly<Record<string, unknown>>, sent?: KeyedBytes): string {
  let hash = 0n;
  let size = 0;
  const members = sent?.members;
  if (sent && members) {
    const { bytes } = sent;
    for (let i = 0; i < members.length; i += MEMBER_OFFSETS) {
      const start = members[i]!;
      const end = members[i + 2]!;
      if (isStreamMember(bytes, start, members[i + 1]!)) continue;
      hash = Bun.hash.wyhash(bytes.subarray(start, end), hash);
      size += end - start;
    }
  } else {
    for (const key of Object.keys(body)) {
      const json = STREAM_MEMBERS.has(key) ? undefined : JSON.stringify(body[key]);
      // As JSON.stringify leaves out of an object a member with no JSON form.
      if (json === undefined) continue;
      const member = `${JSON.stringify(key)}:${json}`;
      hash = Bun.hash.wyhash(member, hash);
      size += Buffer.byteLength(member);
    }
  }
  return `${accountId}:${endpoint}:${size.toString(36)}:${hash.toString(36)}`;
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
