import type { JsonObject } from "../canonical/json-object.ts";
import { readJsonStringAt } from "../wire/scan-json-string.ts";
import { MEMBER_OFFSETS } from "../canonical/member-offsets.ts";
import type { BodyPieces } from "../upstream/join-in-scratch.ts";
import { decodeUtf8 } from "./decode-utf8.ts";

/** One top-level member of a body as it came: where its bytes lie (key, colon and value), its place among the members, the value parsed from it. */
interface SentMember {
  readonly order: number;
  readonly start: number;
  readonly end: number;
  readonly value: unknown;
}

/** A body's bytes as the client sent them (valid UTF-8), and its top-level members by key. */
export interface SentBody {
  readonly bytes: Uint8Array;
  readonly members: ReadonlyMap<string, SentMember>;
}

/**
 * The top-level members of `body` as `bytes` held them (`members` as `scanJsonBytes` found them, in
 * the parsed bytes, which must be valid UTF-8: they go upstream as they are): what `encodeAsSent`
 * cuts unchanged members from instead of serialising them again. None when the body repeats a key
 * or the members do not match the body: an odd body only costs the usual serialisation.
 */
export function readSentBody(body: JsonObject, bytes: Uint8Array, members: readonly number[]): SentBody | undefined {
  const kept = new Map<string, SentMember>();
  for (let i = 0; i < members.length; i += MEMBER_OFFSETS) {
    const written = decodeUtf8(bytes, members[i]!, members[i + 1]!);
    const key = readJsonStringAt(written, 0, written.length);
    if (key === undefined || kept.has(key) || !Object.hasOwn(body, key)) return undefined;
    kept.set(key, { order: i / MEMBER_OFFSETS, start: members[i]!, end: members[i + 2]!, value: body[key] });
  }
  if (kept.size !== Object.keys(body).length) return undefined;
  return { bytes, members: kept };
}

/** A cut of the client's bytes this long or longer is placed by `spacesBefore`: a page's copy, where the stall shows. */
const MIN_PLACED_CUT = 4096;
const PAGE_BYTES = 4096;
/** A copy whose destination lies 1 to this many bytes past its source, modulo a page, is the slow one. */
const SLOW_LEAD = 64;

/**
 * The spaces (JSON's insignificant whitespace) that move a long cut of the client's bytes, about to
 * be written at `written` in the joined body, off the distances from its place in the client's buffer
 * (`source`) at which the join's copy of it is slow: 1 to 63 bytes ahead, modulo a page, the
 * stall known as 4K aliasing (each load waits on a store a page apart that it seems to depend on).
 * A body lands there as a rule: the upstream's model id is longer than the tier the client named.
 * Measured with offsets from the buffers' starts, as here: in a tight loop a 100 KB cut copied 1 to
 * 31 bytes ahead cost 57-68 µs, and 7-15 µs at every other distance tried (-30 to 0, 32 to 300; at
 * 1 MB the distance made no difference); in the gateway, the Blob of a 100 KB Claude-Code-like
 * body took 89.6 µs a request at 1 byte ahead, 39.9 at 64. Joined in the scratch buffer instead
 * (`joinInScratch`), the same body took 5.9 µs at p50 placed, 9.9 unplaced (a gateway in process,
 * 200 requests each); at 1 MB the two did not differ.
 */
function spacesBefore(written: number, source: number): string {
  const lead = (written - source) & (PAGE_BYTES - 1);
  return lead > 0 && lead < SLOW_LEAD ? " ".repeat(SLOW_LEAD - lead) : "";
}

/**
 * The JSON of `body`, a body made from the one `sent` was read from (copied and given other
 * top-level members), to send upstream: each member still holding the value parsed from the
 * client's bytes goes as it came, and only the others are serialised. The members come in the
 * body's own order, as `JSON.stringify` puts them; an unchanged member keeps the client's spacing
 * and escapes, the same JSON value. With `sent`, the pieces to join (`joinInScratch`, at the
 * fetch): views of the client's bytes and the new members' text (the conversation is never
 * decoded or encoded again), a long cut moved on by a few spaces where its copy would be slow
 * (`spacesBefore`); for a body without `sent`, `JSON.stringify(body)`. Relies on what the pipeline
 * holds to: a body's nested values are never changed in place, only top-level members replaced.
 */
export function encodeAsSent(body: JsonObject, sent: SentBody | undefined): string | BodyPieces {
  if (!sent) return JSON.stringify(body);
  const { bytes, members } = sent;
  const pieces: (string | Uint8Array)[] = ["{"];
  /** The joined body's bytes before `pieces[measured]`: counted only up to a long cut, when one comes. */
  let written = 0;
  let measured = 0;
  // Unchanged members next to each other in the text go as one cut, separators included: the
  // fewer and longer the pieces, the cheaper the send (most of a conversation is one cut).
  let run: { start: number; end: number; order: number } | undefined;
  const endRun = () => {
    if (!run) return;
    if (pieces.length > 1) pieces.push(",");
    if (run.end - run.start >= MIN_PLACED_CUT) {
      for (; measured < pieces.length; measured++) {
        const piece = pieces[measured]!;
        written += typeof piece === "string" ? Buffer.byteLength(piece) : piece.byteLength;
      }
      const spaces = spacesBefore(written, bytes.byteOffset + run.start);
      if (spaces !== "") pieces.push(spaces);
    }
    pieces.push(bytes.subarray(run.start, run.end));
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
  return pieces;
}
