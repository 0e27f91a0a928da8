import { isUtf8 } from "node:buffer";
import type { KeyedBytes } from "../cache/build-response-cache-key.ts";
import { type GatewayError, invalidRequest, fail } from "../canonical/gateway-error.ts";
import { isJsonObject } from "../canonical/json-object.ts";
import { readSentBody, type SentBody } from "./encode-as-sent.ts";
import type { ParseScope } from "./create-parse-memo.ts";
import { parseJsonBytes } from "./parse-json-bytes.ts";

const tooLarge = (limit: number): GatewayError =>
  fail("TooLarge", `request body exceeds the limit of ${limit} bytes`);

async function readLimited(body: ReadableStream<Uint8Array>, limit: number): Promise<Uint8Array> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    parts.push(value);
  }
  return Buffer.concat(parts);
}

/**
 * Below this many bytes a body is parsed whole and sent on serialised again, not cut from its
 * bytes: noting its members and sending it as cuts (measured when they went as a Blob) cost a small
 * body more than `JSON.stringify` does (a few µs at 1 KB), and so does parsing it in pieces; a
 * conversation of hundreds of KB is where both pay.
 */
const PIECED_MIN_BYTES = 16 * 1024;

/**
 * Reads and parses a JSON request body, refusing one larger than `limit` bytes (by its declared
 * length before reading, or while streaming when no length was declared) or nested too deeply.
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  return (await readJsonBodyWithBytes(request, limit)).value;
}

/**
 * A JSON request body as read: its value, its bytes as they came with where its members lie (what
 * the response cache hashes rather than the parsed body), and what sends it on as it came.
 */
export interface ReadJsonBody extends KeyedBytes {
  readonly value: unknown;
  /** The body's members, for `encodeAsSent`; absent when the body cannot be cut from them. */
  readonly sent: SentBody | undefined;
}

/**
 * readJsonBody, with the bytes as they came and what sends the body on as it came. With `reuse`,
 * the pieces of a big body its account sent before are not decoded or parsed again
 * (`parseJsonBytes`).
 */
export async function readJsonBodyWithBytes(request: Request, limit: number, reuse?: ParseScope): Promise<ReadJsonBody> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body || declared === "0") throw invalidRequest("request body is required");
  // Declared and within the limit: read whole, at once; otherwise counted while it streams.
  const bytes = declared !== null ? await request.bytes() : await readLimited(request.body, limit);
  return parseJsonBody(bytes, reuse);
}

/**
 * A request body's bytes parsed (decoded as Body.text() does), with what sends it on as it came.
 * Bytes that are not UTF-8 are parsed as decoded (each bad sequence a U+FFFD) and sent on
 * serialised again, as that text: never passed upstream as they came.
 */
export function parseJsonBody(bytes: Uint8Array, reuse?: ParseScope): ReadJsonBody {
  const big = bytes.length >= PIECED_MIN_BYTES;
  // Members are found for every body (the cache key hashes them); a small one is not cut from them.
  const { value, members } = parseJsonBytes(bytes, big ? reuse : undefined);
  const sent = big && members && isJsonObject(value) && isUtf8(bytes) ? readSentBody(value, bytes, members) : undefined;
  return { value, bytes, members, sent };
}
