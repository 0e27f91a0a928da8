import { fail } from "../../canonical/gateway-error.ts";
import { asBuffer } from "../as-buffer.ts";
/** One parsed SSE event: its `event:` name (if any) and its joined `data:` lines. */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

const LF = 10;

/** Index just past the first blank line (`\n\n` or `\r\n\r\n`), or -1 while none has arrived. */
export function endOfFirstEvent(buffer: Uint8Array): number {
  for (let i = 1; i < buffer.length; i++) {
    if (buffer[i] !== LF) continue;
    if (buffer[i - 1] === LF) return i + 1;
    if (buffer[i - 1] === 13 && i >= 3 && buffer[i - 2] === LF) return i + 1;
  }
  return -1;
}

/** Parses the text of one SSE event block; comment lines (`:`) are skipped. */
export function parseSseEvent(block: string): SseEvent {
  let event: string | undefined;
  const data: string[] = [];
  for (const rawLine of block.split("\n")) {
    const line = rawLine.endsWith("\r") ? rawLine.slice(0, -1) : rawLine;
    if (line.startsWith("event:")) event = line.slice(6).trim();
    else if (line.startsWith("data:")) data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
  }
  return { event, data: data.join("\n") };
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

/**
 * The next piece of a stream: all queued chunks joined (one await, often none, for a burst of
 * events), or null at the end.
 */
export async function readNext(reader: ByteReader): Promise<Uint8Array | null> {
  if (!reader.readMany) {
    const result = await reader.read();
    return result.done ? null : result.value;
  }
  const pending = reader.readMany();
  const result = pending instanceof Promise ? await pending : pending;
  if (result.value.length === 0) return result.done ? null : readNext(reader);
  return result.value.length === 1 ? result.value[0]! : Buffer.concat(result.value);
}

export interface FirstEvent {
  /** Everything read so far, the first event and whatever followed it in the same chunks. */
  readonly buffered: Buffer;
  /** The first event that carries data (leading comments and empty blocks are skipped). */
  readonly event: SseEvent;
}

/**
 * Reads from an upstream stream until its first data-bearing event is complete. Returns null when
 * the stream ends first. Nothing has gone to the client yet, so the caller may still fail over.
 */
export async function readFirstEvent(reader: ByteReader, maxBytes: number): Promise<FirstEvent | null> {
  let buffered: Buffer = Buffer.alloc(0);
  let scanned = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return null;
    buffered = buffered.length === 0 ? asBuffer(value) : Buffer.concat([buffered, value]);
    if (buffered.length - scanned > maxBytes) throw fail("UpstreamTooLarge", `upstream sent a stream event larger than ${maxBytes} bytes`);
    for (;;) {
      const end = endOfFirstEvent(buffered.subarray(scanned));
      if (end < 0) break;
      const event = parseSseEvent(buffered.subarray(scanned, scanned + end).toString("utf8"));
      scanned += end;
      if (event.data !== "") return { buffered, event };
    }
  }
}
