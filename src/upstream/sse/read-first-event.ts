import { fail } from "../../canonical/gateway-error.ts";
import { asBuffer } from "../as-buffer.ts";
import type { SseEvent } from "../../wire/sse-event.ts";
import { endOfFirstEvent } from "./end-of-first-event.ts";

/** Parses the text of one SSE event block; comment lines (`:`) are skipped. */
export const parseSseEvent = (block: string): SseEvent => readSseEvent(block, 0, block.length);

/**
 * Parses the SSE event block `text[from, to)` in place: each line is read where it lies, and only
 * a field's value is copied out (no split into lines, no join for the usual single `data:` line).
 * A line's trailing `\r` is dropped; the last `event:` counts; `data:` lines join with `\n`. An
 * `event:` line naming `known` (the stream's last name, as a rule) gives `known` itself, not a new
 * string cut from the text.
 */
export function readSseEvent(text: string, from: number, to: number, known?: string): SseEvent {
  let event: string | undefined;
  let data: string | undefined;
  let at = from;
  while (at <= to) {
    let lineEnd = text.indexOf("\n", at);
    if (lineEnd < 0 || lineEnd > to) lineEnd = to;
    const next = lineEnd + 1;
    if (lineEnd > at && text.charCodeAt(lineEnd - 1) === 13) lineEnd--;
    if (text.startsWith("data:", at) && at + 5 <= lineEnd) {
      const start = at + 5 < lineEnd && text.charCodeAt(at + 5) === 32 ? at + 6 : at + 5;
      const piece = text.slice(start, lineEnd);
      data = data === undefined ? piece : `${data}\n${piece}`;
    } else if (text.startsWith("event:", at) && at + 6 <= lineEnd) {
      const name = text.charCodeAt(at + 6) === 32 ? at + 7 : at + 6;
      event = known !== undefined && lineEnd - name === known.length && text.startsWith(known, name) ? known : text.slice(at + 6, lineEnd).trim();
    }
    at = next;
  }
  return { event, data: data ?? "" };
}

/** The part of a stream reader the gateway uses (fetch bodies and test streams both fit). */
export interface ByteReader {
  read(): Promise<{ done: true; value?: undefined } | { done: false; value: Uint8Array }>;
  /** Bun: every chunk already queued at once, synchronously when there are some. */
  readMany?(): ReadManyResult | Promise<ReadManyResult>;
  cancel(reason?: unknown): Promise<void>;
}

export interface ReadManyResult {
  readonly done: boolean;
  readonly value: readonly Uint8Array[];
}

/** Readers of a stream that trickles: its last `readMany` had to wait, and what came since was small. */
const trickling = new WeakSet<ByteReader>();

/** A chunk at least this large came in a burst (a model's event alone is a few hundred bytes). */
const BURST_BYTES = 4096;

const chunkOf = (reader: ByteReader, result: Awaited<ReturnType<ByteReader["read"]>>): Uint8Array | null => {
  if (result.done) return null;
  if (result.value.byteLength >= BURST_BYTES) trickling.delete(reader);
  return result.value;
};

/**
 * The next piece of a stream, or null at the end: every chunk already queued, joined, at once and
 * not as a promise (see `sendToClient`: the caller awaits only a read that waits). But once a
 * `readMany` has had to wait (a model trickling its events), the stream is read one chunk a read,
 * always a promise, until a chunk of a burst's size comes: a `readMany` that waits builds an array
 * and a result of its own around its one chunk, which `read` does not. Against `readMany` alone (`bun run bench
 * --baseline <checkout without it> --settle 30`, `--sections paths,long-stream --rounds 5`, then
 * `--sections long-stream --rounds 7`): the 200-event answer trickled, 4.5% and 7.2% less CPU a
 * request; the 2,000-event burst -8.5% and -1.7%. `read` alone cost the burst 6-14% more (two runs).
 */
export function readNext(reader: ByteReader): Uint8Array | null | Promise<Uint8Array | null> {
  if (!reader.readMany || trickling.has(reader)) return reader.read().then((result) => chunkOf(reader, result));
  const pending = reader.readMany();
  if (!(pending instanceof Promise)) return takeRead(reader, pending);
  trickling.add(reader);
  return pending.then((result) => takeRead(reader, result));
}

function takeRead(reader: ByteReader, result: ReadManyResult): Uint8Array | null | Promise<Uint8Array | null> {
  if (result.value.length === 0) return result.done ? null : readNext(reader);
  return result.value.length === 1 ? result.value[0]! : Buffer.concat(result.value);
}

export interface FirstEvent {
  /** Everything read so far, the first event and whatever followed it in the same chunks. */
  readonly buffered: Buffer;
  /** The first event that carries data (leading comments and empty blocks are skipped). */
  readonly event: SseEvent;
}

const LFLF = Buffer.from("\n\n");
const LFCRLF = Buffer.from("\n\r\n");

/** Whether `chunk`, read after `before`, completes an event: a blank line in it, or across the seam. */
function endsEvent(before: Buffer | undefined, chunk: Buffer): boolean {
  if (chunk.indexOf(LFLF) >= 0 || chunk.indexOf(LFCRLF) >= 0) return true;
  if (!before) return false;
  const seam = Buffer.concat([before.subarray(-2), chunk.subarray(0, 2)]);
  return seam.indexOf(LFLF) >= 0 || seam.indexOf(LFCRLF) >= 0;
}

/**
 * Reads from an upstream stream until its first data-bearing event is complete, and on while
 * `readOn` says the events so far only open the stream (it may also throw to refuse one). Returns
 * null when the stream ends first. Nothing has gone to the client yet, so the caller may still fail
 * over. An event still incomplete is held as the chunks it came in, never more than `maxBytes`.
 */
export async function readFirstEvent(reader: ByteReader, maxBytes: number, readOn?: (event: SseEvent) => boolean): Promise<FirstEvent | null> {
  const read: Buffer[] = [];
  let pending: Buffer[] = [];
  let pendingBytes = 0;
  let first: SseEvent | undefined;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return null;
    const chunk = asBuffer(value);
    read.push(chunk);
    const complete = endsEvent(pending[pending.length - 1], chunk);
    pending.push(chunk);
    pendingBytes += chunk.length;
    if (!complete) {
      if (pendingBytes > maxBytes) throw fail("UpstreamTooLarge", `upstream sent a stream event larger than ${maxBytes} bytes`);
      continue;
    }
    const bytes = pending.length === 1 ? pending[0]! : Buffer.concat(pending);
    let scanned = 0;
    for (;;) {
      const end = endOfFirstEvent(bytes.subarray(scanned));
      if (end < 0) break;
      const event = parseSseEvent(bytes.subarray(scanned, scanned + end).toString("utf8"));
      scanned += end;
      if (event.data === "") continue;
      first ??= event;
      if (!readOn?.(event)) return { buffered: read.length === 1 ? read[0]! : Buffer.concat(read), event: first };
    }
    pending = scanned === bytes.length ? [] : [bytes.subarray(scanned)];
    pendingBytes = bytes.length - scanned;
    if (pendingBytes > maxBytes) throw fail("UpstreamTooLarge", `upstream sent a stream event larger than ${maxBytes} bytes`);
  }
}
