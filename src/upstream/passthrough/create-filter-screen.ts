import { isJsonObject } from "../../canonical/json-object.ts";

/**
 * A passing Chat or Responses stream, screened for a content-filter ending. The spec wants a
 * blocked reply to end with the format's error event, so that event must never reach the client.
 *
 * Per chunk: one `indexOf` of a short marker, nothing parsed. Bytes go out as whole lines (a partial
 * last line waits for its end), so the marker, which holds no newline, can never straddle two
 * chunks. Only a line that holds the marker is parsed, to tell a real filter ending from a reply
 * whose text happens to contain it.
 */
export interface FilterScreen {
  /** What of `chunk` may go out now: whole lines, up to the filtered event when one is found. */
  push(chunk: Buffer): Buffer;
  /** At the end of the stream: the held-back partial line (and `last`), screened. */
  flush(last?: Buffer): Buffer;
  /** The bytes from the filtered event on (never sent), once one was found. */
  readonly blocked: Buffer | undefined;
}

/** Both formats spell the value this way (`finish_reason` / `incomplete_details.reason`). */
const MARKER = Buffer.from('"content_filter"');
const DATA = Buffer.from("data:");
const EVENT = Buffer.from("event:");
const LF = 10;
const EMPTY = Buffer.alloc(0);

/** Chat: a chunk with a choice that the filter stopped. Responses: the response it left incomplete. */
function isFilteredEnding(format: "chat" | "responses", data: unknown): boolean {
  if (!isJsonObject(data)) return false;
  if (format === "chat") {
    return Array.isArray(data.choices) && data.choices.some((choice: unknown) => isJsonObject(choice) && choice.finish_reason === "content_filter");
  }
  const response = data.response;
  return data.type === "response.incomplete" && isJsonObject(response) && isJsonObject(response.incomplete_details) && response.incomplete_details.reason === "content_filter";
}

/** The one `data:` line that holds the marker, parsed: the only parse the screen ever does. */
function confirms(format: "chat" | "responses", line: Buffer): boolean {
  if (!line.subarray(0, DATA.length).equals(DATA)) return false;
  try {
    return isFilteredEnding(format, JSON.parse(line.toString("utf8", DATA.length)));
  } catch {
    return false;
  }
}

/** Where the event whose data line starts at `lineStart` begins: its `event:` line, when that is in `bytes`. */
function eventStart(bytes: Buffer, lineStart: number): number {
  if (lineStart < 2) return lineStart;
  const previous = bytes.lastIndexOf(LF, lineStart - 2) + 1;
  return bytes.subarray(previous, previous + EVENT.length).equals(EVENT) ? previous : lineStart;
}

export function createFilterScreen(format: "chat" | "responses"): FilterScreen {
  let carry: Buffer = EMPTY;
  let blocked: Buffer | undefined;

  const screen = (bytes: Buffer): Buffer => {
    let at = bytes.indexOf(MARKER);
    while (at >= 0) {
      const lineStart = bytes.lastIndexOf(LF, at) + 1;
      const newline = bytes.indexOf(LF, at);
      const lineEnd = newline < 0 ? bytes.length : newline;
      if (confirms(format, bytes.subarray(lineStart, lineEnd))) {
        const start = eventStart(bytes, lineStart);
        blocked = bytes.subarray(start);
        return bytes.subarray(0, start);
      }
      at = bytes.indexOf(MARKER, lineEnd);
    }
    return bytes;
  };

  return {
    push(chunk) {
      if (blocked) return EMPTY;
      const bytes = carry.length === 0 ? chunk : Buffer.concat([carry, chunk]);
      // Upstreams flush whole events, so the last byte is nearly always a newline: no search, no copy.
      const cut = bytes.length > 0 && bytes[bytes.length - 1] === LF ? bytes.length : bytes.lastIndexOf(LF) + 1;
      carry = cut === bytes.length ? EMPTY : Buffer.from(bytes.subarray(cut));
      return cut === 0 ? EMPTY : screen(bytes.subarray(0, cut));
    },
    flush(last) {
      const rest = last && last.length > 0 ? Buffer.concat([carry, last]) : carry;
      carry = EMPTY;
      return blocked || rest.length === 0 ? EMPTY : screen(rest);
    },
    get blocked() {
      return blocked;
    },
  };
}
