import type { KeyedText } from "../cache/build-response-cache-key.ts";
import { type GatewayError, invalidRequest, fail } from "../canonical/gateway-error.ts";
import { isJsonObject } from "../canonical/json-object.ts";
import { readSentBody, type SentBody } from "./encode-as-sent.ts";
import type { ParseScope } from "./create-parse-memo.ts";
import { parseJsonText } from "./parse-json-text.ts";

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

const utf8 = new TextDecoder();

/**
 * Below this many characters a body is parsed whole and sent on serialised again, not cut from its
 * text: noting its members and sending a Blob of cuts cost a small body more than `JSON.stringify`
 * does (a few µs at 1 KB), and so does parsing it in pieces; a conversation of hundreds of KB is
 * where both pay.
 */
const PIECED_MIN_CHARS = 16 * 1024;

/**
 * Reads and parses a JSON request body, refusing one larger than `limit` bytes (by its declared
 * length before reading, or while streaming when no length was declared) or nested too deeply.
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  return (await readJsonBodyWithText(request, limit)).value;
}

/**
 * A JSON request body as read: its value, its text as it came with where its members lie (what
 * the response cache hashes rather than the parsed body), and what sends it on as it came.
 */
export interface ReadJsonBody extends KeyedText {
  readonly value: unknown;
  /** The text's members, for `encodeAsSent`; absent when the body cannot be cut from them. */
  readonly sent: SentBody | undefined;
}

/**
 * readJsonBody, with the text as it came and what sends the body on as it came. With `reuse`, the
 * pieces of a big body its account sent before are not parsed again (`parseJsonText`).
 */
export async function readJsonBodyWithText(request: Request, limit: number, reuse?: ParseScope): Promise<ReadJsonBody> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body || declared === "0") throw invalidRequest("request body is required");
  // Declared and within the limit: read whole, as text, at once (the body's bytes are never a JS
  // buffer: a 1 MB body is one allocation the collector counts, not two); otherwise counted while
  // it streams, then decoded.
  const text = declared !== null ? await request.text() : utf8.decode(await readLimited(request.body, limit));
  return parseJsonBody(text, reuse);
}

/** A request body's text (decoded as Body.text() does) parsed, with what sends it on as it came. */
export function parseJsonBody(text: string, reuse?: ParseScope): ReadJsonBody {
  const big = text.length >= PIECED_MIN_CHARS;
  // Members are found for every body (the cache key hashes them); a small one is not cut from them.
  const { value, members } = parseJsonText(text, true, big ? reuse : undefined);
  const sent = big && members && isJsonObject(value) ? readSentBody(value, text, members) : undefined;
  return { value, text, members, sent };
}
