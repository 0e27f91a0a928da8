import { isAscii } from "node:buffer";
import type { JsonObject } from "../canonical/json-object.ts";
import { readJsonStringAt } from "../wire/scan-json-string.ts";
import { MEMBER_OFFSETS } from "../canonical/member-offsets.ts";

/** One top-level member of a body as it came: where its text lies (key, colon and value), its place among the members, the value parsed from it. */
interface SentMember {
  readonly order: number;
  readonly start: number;
  readonly end: number;
  readonly value: unknown;
}

/**
 * A body's text as the client sent it, its top-level members by key, and the bytes it was decoded
 * from when they are exactly the text's UTF-8 (`ascii`: one byte a character, so the text's
 * offsets are the bytes' offsets).
 */
export interface SentBody {
  readonly text: string;
  readonly bytes: Uint8Array | undefined;
  readonly ascii: boolean;
  readonly members: ReadonlyMap<string, SentMember>;
}

const startsWithBom = (bytes: Uint8Array): boolean => bytes[0] === 0xef && bytes[1] === 0xbb && bytes[2] === 0xbf;

/**
 * Whether `bytes` are the UTF-8 of `text`, which the decoder made of them. Decoding drops a leading
 * byte-order mark and turns each bad sequence into U+FFFD (a truncated four-byte sequence into as
 * many bytes as it had): without the mark and without a U+FFFD in the text, the bytes were valid
 * UTF-8, which only that text encodes to.
 */
const isUtf8Of = (text: string, bytes: Uint8Array): boolean => !startsWithBom(bytes) && !text.includes("\ufffd");

/**
 * The top-level members of `body` as `text` held them (`members` as `scanJsonText` found them, in
 * the parsed text), and `sentBytes`, the bytes the text was decoded from, when they are its UTF-8:
 * what `encodeAsSent` cuts unchanged members from instead of serialising them again. None when the
 * text repeats a key or the members do not match the body: an odd text only costs the usual
 * serialisation.
 */
export function readSentBody(
  body: JsonObject,
  text: string,
  members: readonly number[],
  sentBytes?: Uint8Array,
  // Whether the bytes are ASCII, when the caller knows already (a second pass over 1 MB otherwise).
  ascii = sentBytes !== undefined && sentBytes.length === text.length && isAscii(sentBytes),
): SentBody | undefined {
  const kept = new Map<string, SentMember>();
  for (let i = 0; i < members.length; i += MEMBER_OFFSETS) {
    const key = readJsonStringAt(text, members[i]!, members[i + 1]!);
    if (key === undefined || kept.has(key) || !Object.hasOwn(body, key)) return undefined;
    kept.set(key, { order: i / MEMBER_OFFSETS, start: members[i]!, end: members[i + 2]!, value: body[key] });
  }
  if (kept.size !== Object.keys(body).length) return undefined;
  const bytes = sentBytes !== undefined && (ascii || isUtf8Of(text, sentBytes)) ? sentBytes : undefined;
  return { text, bytes, ascii, members: kept };
}

/**
 * The JSON of `body`, a body made from the one `sent` was read from (copied and given other
 * top-level members), to send upstream: each member still holding the value parsed from the
 * client's text goes as it came, and only the others are serialised. The members come in the
 * body's own order, as `JSON.stringify` puts them; an unchanged member keeps the client's spacing
 * and escapes, the same JSON value. When the client's bytes were kept, a Blob of their cuts (the
 * conversation is never copied into a string, nor encoded again); otherwise one string; for a body
 * without `sent`, `JSON.stringify(body)`. Relies on what the pipeline holds to: a
 * body's nested values are never changed in place, only top-level members replaced.
 */
export function encodeAsSent(body: JsonObject, sent: SentBody | undefined): string | Blob {
  if (!sent) return JSON.stringify(body);
  const { text, bytes, ascii, members } = sent;
  // Where a text offset lies in the bytes: the same offset in ASCII, else the UTF-8 length before it.
  const byteOffset = (offset: number): number => (ascii ? offset : Buffer.byteLength(text.slice(0, offset), "utf8"));
  const pieces: (string | Uint8Array)[] = ["{"];
  // Unchanged members next to each other in the text go as one cut, separators included: the
  // fewer and longer the pieces, the cheaper the send (most of a conversation is one cut).
  let run: { start: number; end: number; order: number } | undefined;
  const endRun = () => {
    if (!run) return;
    if (pieces.length > 1) pieces.push(",");
    if (!bytes) pieces.push(text.slice(run.start, run.end));
    else {
      const from = byteOffset(run.start);
      pieces.push(bytes.subarray(from, ascii ? run.end : from + Buffer.byteLength(text.slice(run.start, run.end), "utf8")));
    }
    run = undefined;
  };
  for (const key of Object.keys(body)) {
    const value = body[key];
    const member = members.get(key);
    if (member !== undefined && Object.is(member.value, value)) {
      if (run && member.order === run.order + 1) {
        run.end = member.end;
        run.order = member.order;
      } else {
        endRun();
        run = { start: member.start, end: member.end, order: member.order };
      }
      continue;
    }
    const json = JSON.stringify(value);
    // As in an object JSON.stringify serialises: a member with no JSON form is left out.
    if (json === undefined) continue;
    endRun();
    if (pieces.length > 1) pieces.push(",");
    pieces.push(JSON.stringify(key), ":", json);
  }
  endRun();
  pieces.push("}");
  if (bytes) return new Blob(pieces);
  // One join, one flat string: text put together piece by piece is a rope, which fetch sends at
  // a higher CPU cost than a flat string of the same length.
  return (pieces as string[]).join("");
}
