import type { WireApi } from "../../wire/wire-api.ts";
import { readNext, type ByteReader } from "../sse/read-first-event.ts";

/** What an upstream may still send after a filter stopped it: a usage chunk and the stream's end, far less than this. */
const LIMIT_BYTES = 64 * 1024;
/** The usage chunk follows the filtered chunk at once; an upstream that goes quiet instead is let go. */
const DEADLINE_MS = 5_000;

/**
 * The withheld end of a stream a content filter blocked, with whatever the upstream still sends,
 * read but never sent: the tokens were spent, and an upstream that reports them after the filtered
 * event (a Chat usage chunk) is read up to its end; where the blocked event carries its usage
 * itself (Responses), nothing more is read. Bounded in bytes and time; the upstream is let go at the end.
 */
export async function readFilteredRest(reader: ByteReader, api: WireApi, blocked: Buffer): Promise<Buffer> {
  let rest = blocked;
  // Read up to the stream's end event (Chat `[DONE]`), or to the end of the body where the API has none.
  const end = api.streamEnd === undefined ? undefined : Buffer.from(`data: ${api.streamEnd}`);
  if (api.usageAfterFilter && (end === undefined || rest.indexOf(end) < 0)) {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<null>((resolve) => {
      timer = setTimeout(() => resolve(null), DEADLINE_MS);
    });
    try {
      while (rest.length < LIMIT_BYTES) {
        const next = await Promise.race([readNext(reader), timeout]);
        if (next === null) break;
        // The end may straddle two reads: the search starts a marker's length before the new bytes.
        const from = Math.max(0, rest.length - (end?.length ?? 0));
        rest = Buffer.concat([rest, next]);
        if (end !== undefined && rest.indexOf(end, from) >= 0) break;
      }
    } catch {
      // A connection that breaks now loses nothing the client gets; what was read still counts.
    } finally {
      clearTimeout(timer);
    }
  }
  await reader.cancel().catch(() => {});
  return rest;
}
