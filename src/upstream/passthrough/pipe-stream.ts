import { CONTENT_FILTERED_ERROR } from "../../canonical/content-filtered.ts";
import type { GatewayError } from "../../canonical/gateway-error.ts";
import { streamTokens, type StreamTokens } from "../../canonical/stream-tokens.ts";
import type { Usage } from "../../canonical/usage.ts";
import type { WireApi } from "../../wire/wire-api.ts";
import { asBuffer } from "../as-buffer.ts";
import { endResponse, keepClientAlive, newClientLink, sendToClient } from "../sse/client-link.ts";
import { createBeforeLastBytes, type BeforeLastBytes } from "../sse/create-before-last-bytes.ts";
import { STREAM_KEEP_LIMIT } from "../../cache/stream-keep-limit.ts";
import { createStreamClock, type StreamLimits } from "../sse/create-stream-clock.ts";
import { readNext, type ByteReader } from "../sse/read-first-event.ts";
import { streamFailures } from "../sse/stream-failures.ts";
import { createEventFramer } from "./create-event-framer.ts";
import { createEventInspector } from "./create-event-inspector.ts";
import { createKeptChunksTally } from "./create-kept-chunks-tally.ts";
import { createTierRewrite } from "./create-tier-rewrite.ts";
import { forEachEvent } from "./for-each-event.ts";
import { readFilteredRest } from "./read-filtered-rest.ts";
import { sniffUsage } from "./sniff-usage.ts";

export interface PipeOptions {
  /** The API the client and the upstream both speak. */
  readonly api: WireApi;
  readonly upstreamModelId: string;
  /** What the client sees in `model`. */
  readonly tier: string;
  /** The client's request: once it has gone, a broken upstream is nobody's news. */
  readonly client: Request;
  /** Keep-alive and idle limits, and the longest event passed on. */
  readonly limits: StreamLimits & { readonly maxEventBytes: number };
  /** Called once when the stream has ended, however it ended. */
  onEnd?: (end: PipeEnd) => void;
  /**
   * Called once just before the stream's last bytes go out (its terminal event, or the error event
   * that ends it): what the stream holds (its concurrency slot) is free before the client has it all.
   * A stream that ends normally passes its tokens, as `onEnd` will report them (nothing can add to
   * them then), so they can be counted with the slot.
   */
  readonly beforeLastBytes?: BeforeLastBytes;
  /** Chat: the gateway asked for the usage chunk, the client did not; it is taken out (and kept for accounting). */
  readonly hideUsageChunk?: boolean;
  /** Keep every chunk sent (by reference, up to a size) so the whole answer can be rebuilt at the end. */
  readonly keepChunks?: boolean;
}

/** How a piped stream ended: its tokens, and whether it failed or the client left. */
export interface PipeEnd extends StreamTokens {
  /** The message of the error event that ended the stream (the gateway's or the upstream's), when it failed or a content filter blocked it. */
  readonly failure?: string;
  readonly clientAborted: boolean;
  /** Every chunk sent, when `keepChunks` was asked and the stream stayed within the size kept. */
  readonly chunks?: readonly Uint8Array[];
}

const SEQUENCE_FIELD = Buffer.from('"sequence_number":');
const BLANK_LINE = Buffer.from("\n\n");
const EMPTY = Buffer.alloc(0);

/**
 * The last Responses `sequence_number` among the chunks sent, newest first, so an appended error
 * event continues the count. Only needed on the failure path, so nothing is tracked per chunk.
 */
function lastSequenceNumber(chunks: readonly (Uint8Array | undefined)[]): number {
  for (const chunk of chunks) {
    if (!chunk) continue;
    const bytes = asBuffer(chunk);
    const at = bytes.lastIndexOf(SEQUENCE_FIELD);
    if (at < 0) continue;
    const value = Number.parseInt(bytes.subarray(at + SEQUENCE_FIELD.length, at + SEQUENCE_FIELD.length + 12).toString("latin1"), 10);
    if (!Number.isNaN(value)) return value;
  }
  return -1;
}

/** Why a stream stops before its upstream's end. */
type Stop =
  /** The upstream's own error event went out: nothing more is sent. */
  | { readonly kind: "end"; readonly failure: string }
  /** A content filter's ending: the format's filter error replaces it. */
  | { readonly kind: "filtered"; readonly blocked: Buffer }
  /** The gateway ends the stream with the format's error event. */
  | { readonly kind: "fail"; readonly error: GatewayError };

const clock = createStreamClock();

/** An event's bytes to send in its place: `bytes` (empty: nothing) for `bytes[from, to)`. */
interface Edit {
  readonly from: number;
  readonly to: number;
  readonly bytes: Buffer;
}

/** `bytes[from, to)` with the edits inside it made; the same bytes, uncopied, when there are none. */
function edited(bytes: Buffer, from: number, to: number, edits: readonly Edit[] | undefined): Buffer {
  const slice = from === 0 && to === bytes.length ? bytes : bytes.subarray(from, to);
  const inside = edits?.filter((edit) => edit.from >= from && edit.to <= to);
  if (!inside || inside.length === 0) return slice;
  const parts: Buffer[] = [];
  let at = from;
  for (const edit of inside) {
    parts.push(bytes.subarray(at, edit.from), edit.bytes);
    at = edit.to;
  }
  parts.push(bytes.subarray(at, to));
  return Buffer.concat(parts);
}

/** An event with new data, framed as SSE (the data was read as Latin-1, so it goes back as the bytes it was). */
const framed = (name: string | undefined, data: string): Buffer => Buffer.from(`${name !== undefined ? `event: ${name}\n` : ""}data: ${data}\n\n`, "latin1");

/**
 * Pipes the upstream stream to the client through Bun's direct sink (no intermediate JS queue),
 * whole events only: each is read once as it passes (a malformed one is never sent, and ends the
 * stream), `model` is rewritten in place, and a quiet stream gets the format's keep-alives.
 */
export function pipeStream(reader: ByteReader, first: Buffer, request: PipeOptions): ReadableStream<Uint8Array> {
  const { api, limits } = request;
  const framer = createEventFramer(limits.maxEventBytes);
  let kept: Uint8Array[] | undefined = request.keepChunks ? [] : undefined;
  let keptBytes = 0;
  // The text sent is read back from the kept chunks, if its tokens are asked for.
  const keptText = kept ? createKeptChunksTally(api, () => kept ?? []) : undefined;
  const inspector = createEventInspector(api, request.hideUsageChunk === true, keptText);
  const rewrite = createTierRewrite(api, request.upstreamModelId, request.tier);
  // The last two chunks sent: where the failure path finds the sequence number.
  let latest: Uint8Array | undefined;
  let previous: Uint8Array | undefined;
  let stop: Stop | undefined;
  const link = newClientLink();
  let idled = false;

  /**
   * Events held back: a terminal event and what followed it, which end the stream unless more comes
   * (another message of a Messages stream). They go out with what follows, or last, once the
   * upstream has ended: so the slot is free before the client has its last byte.
   */
  let held: Buffer[] = [];

  /**
   * The events in `bytes` that may go out now, and those to hold back after them; sets `stop` at the
   * first event that ends the stream.
   */
  const admit = (bytes: Buffer, atEnd = false): { out: Buffer; hold?: Buffer } => {
    if (bytes.length === 0) return { out: bytes };
    let until = bytes.length;
    // Events sent otherwise than they came (rare: a hidden usage chunk, a repeat, rewritten ids).
    let edits: Edit[] | undefined;
    let holdFrom = inspector.between ? 0 : -1;
    forEachEvent(bytes, (event) => {
      if (event.end - event.start > limits.maxEventBytes) {
        stop = { kind: "fail", error: streamFailures.eventTooLarge(limits.maxEventBytes) };
        until = event.start;
        return false;
      }
      if (event.data === undefined) return true;
      const verdict = inspector.step(event.name, event.data);
      const replacement = inspector.replacement;
      if (replacement !== undefined) (edits ??= []).push({ from: event.start, to: event.end, bytes: framed(event.name, replacement) });
      switch (verdict) {
        case "pass":
        case "hide":
        case "stopped":
          if (verdict === "hide") (edits ??= []).push({ from: event.start, to: event.end, bytes: EMPTY });
          if (!inspector.between) holdFrom = -1;
          else if (holdFrom < 0) holdFrom = event.start;
          return true;
        case "malformed":
          // At the end of the stream, an event without its blank line that does not parse was cut.
          stop = { kind: "fail", error: atEnd ? streamFailures.incomplete() : streamFailures.malformed() };
          until = event.start;
          return false;
        case "filtered":
          stop = { kind: "filtered", blocked: bytes.subarray(event.start) };
          until = event.start;
          return false;
        case "failed":
          stop = { kind: "end", failure: inspector.failure ?? "upstream sent an error event" };
          until = event.end;
          return false;
        default: {
          const unknownVerdict: never = verdict;
          return unknownVerdict;
        }
      }
    });
    // Only a stream that goes on holds anything back: a stop sends what came before it.
    if (stop) holdFrom = -1;
    const cut = holdFrom >= 0 ? holdFrom : until;
    const out = edited(bytes, 0, cut, edits);
    return holdFrom >= 0 ? { out, hold: edited(bytes, holdFrom, until, edits) } : { out };
  };

  /** What goes out now: the events held back, when anything follows them (or `last`), then `out`; `hold` waits. */
  const release = (out: Buffer, hold: Buffer | undefined, last: boolean): Buffer => {
    let bytes = out;
    if (held.length > 0 && (out.length > 0 || last)) {
      bytes = Buffer.concat([...held, out]);
      held = [];
    }
    if (hold) {
      if (last) bytes = bytes.length === 0 ? hold : Buffer.concat([bytes, hold]);
      else held.push(hold);
    }
    return bytes;
  };

  /** Notes bytes that went out as part of the answer (not keep-alives, not the gateway's error event). */
  const noteSent = (bytes: Uint8Array): void => {
    if (bytes.byteLength === 0) return;
    previous = latest;
    latest = bytes;
    if (kept) {
      kept.push(bytes);
      keptBytes += bytes.byteLength;
      if (keptBytes > STREAM_KEEP_LIMIT) {
        // The events held back then carry no text: only terminal ones are held, between messages.
        keptText?.letGo(kept);
        kept = undefined;
      }
    }
  };

  let reported = false;
  const report = (clientAborted: boolean, failure?: string, usage?: Usage): void => {
    if (reported) return;
    reported = true;
    // Every member, in one order: one shape for every stream's end (see trackRequest).
    request.onEnd?.({
      ...streamTokens(inspector.text, usage ?? inspector.usage, inspector.startUsage),
      failure,
      clientAborted,
      chunks: kept && !clientAborted && failure === undefined ? kept : undefined,
    });
  };

  /** What `report` passes of the tokens, for a stream whose upstream has ended. */
  const endedTokens = (): StreamTokens => streamTokens(inspector.text, inspector.usage, inspector.startUsage);

  /** The format's error event, numbered after the last event sent (Responses). */
  const errorEvent = (error: GatewayError): Buffer => Buffer.from(api.encodeStreamError(error, lastSequenceNumber([latest, previous]) + 1));

  const beforeLastBytes = createBeforeLastBytes(request.beforeLastBytes);

  let filtered = false;
  /**
   * A content filter blocked the reply: the client gets the format's error event in place of the
   * filtered ending and the stream closes at once. The rest of the upstream is read afterwards,
   * off the client's time, for the usage it still reports.
   */
  const endFiltered = async (controller: ReadableStreamDirectController, blocked: Buffer): Promise<void> => {
    filtered = true;
    await beforeLastBytes();
    const sent = await sendToClient(link, controller, errorEvent(CONTENT_FILTERED_ERROR));
    const withheld = framer.rest();
    void readFilteredRest(reader, api, withheld.length > 0 ? Buffer.concat([blocked, withheld]) : blocked).then((rest) =>
      report(!sent, CONTENT_FILTERED_ERROR.message, sniffUsage(api, [rest]) ?? inspector.usage),
    );
  };

  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    async pull(controller) {
      try {
        await pipe(controller);
      } finally {
        link.beat?.stop();
      }
    },
    cancel: (reason) => {
      link.gone = true;
      link.beat?.stop();
      void reader.cancel(reason).catch(() => {});
      // A client gone while the filtered ending went out: the drain still reports, with the usage.
      if (!filtered) report(true);
    },
  };

  async function pipe(controller: ReadableStreamDirectController): Promise<void> {
    link.beat = clock.watch(limits, {
      quiet: () => keepClientAlive(link, controller, api.keepalive, stop !== undefined),
      idle: () => {
        idled = true;
        void reader.cancel().catch(() => {});
      },
    });
    let chunk: Uint8Array = first;
    let ending: GatewayError | undefined;
    for (;;) {
      link.beat.heard++;
      const step = admit(framer.push(chunk));
      if (!stop && framer.overflowed) stop = { kind: "fail", error: streamFailures.eventTooLarge(limits.maxEventBytes) };
      // A stop is rare (a failure, a filter, the upstream's error event): a plain await will do.
      if (stop) await beforeLastBytes();
      const out = release(rewrite(step.out), step.hold && rewrite(step.hold), stop !== undefined);
      noteSent(out);
      const sending = sendToClient(link, controller, out);
      if (!(sending instanceof Promise ? await sending : sending)) break;
      if (stop) break;
      let next: Uint8Array | null;
      try {
        const reading = readNext(reader);
        next = reading instanceof Promise ? await reading : reading;
      } catch (error) {
        if (link.gone || request.client.signal.aborted) {
          link.gone = true;
          break;
        }
        // After the terminal event, a broken connection has cost nothing.
        if (inspector.between) break;
        const code = error !== null && typeof error === "object" && "code" in error ? String(error.code) : "error";
        ending = streamFailures.broken(code);
        break;
      }
      if (next === null) {
        if (idled && !inspector.between) ending = streamFailures.idle(limits.idleMs);
        break;
      }
      chunk = next;
    }
    if (link.gone) {
      await reader.cancel().catch(() => {});
      return report(true);
    }
    if (stop?.kind === "filtered") return endFiltered(controller, stop.blocked);
    if (stop?.kind === "end") {
      // The upstream's own error event went out: nothing after it is wanted.
      await reader.cancel().catch(() => {});
      return report(false, stop.failure);
    }
    if (!stop && !ending) {
      // The upstream's end: an event still held is the stream's last only if it is whole.
      const rest = framer.restMayBeWhole() ? framer.rest() : EMPTY;
      const step = admit(rest.length > 0 ? Buffer.concat([rest, BLANK_LINE]) : EMPTY, true);
      const last = stop as Stop | undefined;
      const complete = last === undefined && inspector.between;
      const out = release(rewrite(step.out), step.hold && rewrite(step.hold), true);
      if (complete || out.length > 0) {
        // Noted first: the tokens may be counted from the chunks kept.
        noteSent(out);
        // Complete: the upstream has ended, every event is read, and these are the tokens `report` passes.
        const freeing = beforeLastBytes(complete ? endedTokens() : undefined);
        if (freeing) await freeing;
        // Not flushed: the response's end, right after, sends it with the closing chunk (one write, not two).
        const sending = sendToClient(link, controller, out, false);
        if (!(sending instanceof Promise ? await sending : sending)) return report(true);
      }
      if (last?.kind === "end") return report(false, last.failure);
      if (complete) {
        report(false);
        return endResponse(controller);
      }
      if (last?.kind === "filtered") return endFiltered(controller, last.blocked);
      if (last === undefined) ending = streamFailures.incomplete();
    }
    // A stream never ends cleanly after a failure: the client gets the format's own error event.
    const error = ending ?? (stop?.kind === "fail" ? stop.error : streamFailures.incomplete());
    await reader.cancel().catch(() => {});
    await beforeLastBytes();
    const sent = await sendToClient(link, controller, errorEvent(error));
    report(!sent, sent ? error.message : undefined);
    // Resolving pull ends the response; an explicit close() here costs a second, slower ending.
  }
  return new ReadableStream(source);
}
