/** What `forEachEvent` shows of one event: where its bytes are, its `event:` name and its joined `data:` lines. */
export interface EventView {
  readonly start: number;
  /** Just past the event's blank line. */
  readonly end: number;
  readonly name: string | undefined;
  /** Undefined for an event without a data line (a comment, a bare `event:` line). */
  readonly data: string | undefined;
}

const LF = 10;
const CR = 13;
const DATA = Buffer.from("data:");
const EVENT = Buffer.from("event:");
const SPACE = 0x20;

function startsWith(bytes: Buffer, at: number, end: number, prefix: Buffer): boolean {
  return bytes[at] === prefix[0] && end - at >= prefix.length && bytes.compare(prefix, 0, prefix.length, at, at + prefix.length) === 0;
}

/**
 * Walks the whole SSE events in `bytes` (as the framer hands them over) without copying them: only
 * each event's data is decoded. `visit` returns false to stop the walk.
 */
export function forEachEvent(bytes: Buffer, visit: (event: EventView) => boolean): void {
  let pos = 0;
  let start = 0;
  let name: string | undefined;
  let data: string | undefined;
  const n = bytes.length;
  while (pos < n) {
    let lf = bytes.indexOf(LF, pos);
    if (lf < 0) lf = n;
    const lineEnd = lf > pos && bytes[lf - 1] === CR ? lf - 1 : lf;
    if (lineEnd === pos) {
      if (pos > start && !visit({ start, end: lf + 1, name, data })) return;
      start = lf + 1;
      name = undefined;
      data = undefined;
    } else if (startsWith(bytes, pos, lineEnd, DATA)) {
      const from = pos + DATA.length + (bytes[pos + DATA.length] === SPACE ? 1 : 0);
      const line = bytes.toString("utf8", from, lineEnd);
      data = data === undefined ? line : `${data}\n${line}`;
    } else if (startsWith(bytes, pos, lineEnd, EVENT)) {
      name = bytes.toString("utf8", pos + EVENT.length, lineEnd).trim();
    }
    pos = lf + 1;
  }
  // The stream's last event without its blank line (only the end of a stream hands one over).
  if (start < n) visit({ start, end: n, name, data });
}
