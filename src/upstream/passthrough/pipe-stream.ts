import { CONTENT_FILTERED_ERROR } from "../../canonical/content-filtered.ts";
import { GatewayError } from "../../canonical/gateway-error.ts";
import type { WireFormat } from "../../canonical/wire-format.ts";
import { encodeStreamError } from "../../formats/encode-stream-error.ts";
import { readNext, type ByteReader } from "../sse/read-first-event.ts";
import { createFilterScreen } from "./create-filter-screen.ts";
import { createModelRewriter } from "./create-model-rewriter.ts";
import { createTerminalWatch } from "./create-terminal-watch.ts";
import { cutChatUsageChunk } from "./cut-chat-usage-chunk.ts";
import { readFilteredRest } from "./read-filtered-rest.ts";
import { asBuffer } from "../as-buffer.ts";

export interface PipeOptions {
  readonly format: WireFormat;
  readonly upstreamModelId: string;
  /** What the client sees in `model`. */
  readonly tier: string;
  /** The client's request: once it has gone, a broken upstream is nobody's news. */
  readonly client: Request;
  /** Called once when the stream has ended, however it ended. */
  onEnd?: (end: PipeEnd) => void;
  /** Chat: the gateway asked for the usage chunk, the client did not; it is taken out (and kept for accounting). */
  readonly hideUsageChunk?: boolean;
  /** Keep every chunk sent (by reference, up to a size) so the whole answer can be rebuilt at the end. */
  readonly keepChunks?: boolean;
}

/** Beyond this, a stream is not kept for the response cache. */
const KEEP_LIMIT_BYTES = 4 * 1024 * 1024;

/** How a piped stream ended, with its last chunks (where the closing events and their usage are). */
export interface PipeEnd {
  /** The message of the error event that ended the stream, when it failed or a content filter blocked it. */
  readonly failure?: string;
  readonly clientAborted: boolean;
  /**
   * The last two chunks sent, oldest first, where the closing events and their usage are; after a
   * content filter, followed by the withheld ending (the blocked event and what came after it).
   */
  readonly tail: readonly Uint8Array[];
  /** The JSON of the usage chunk taken out of a Chat stream (see `hideUsageChunk`). */
  readonly hiddenUsageChunk?: string;
  /** Every chunk sent, when `keepChunks` was asked and the stream stayed within the size kept. */
  readonly chunks?: readonly Uint8Array[];
}

const SEQUENCE_FIELD = Buffer.from('"sequence_number":');

/**
 * The last Responses `sequence_number` among the chunks sent, newest first, so an appended error
 * event continues the count. Only needed on the failure path, so nothing is tracked per chunk.
 */
function lastSequenceNumber(chunks: readonly Uint8Array[]): number {
  for (const chunk of chunks) {
    const bytes = asBuffer(chunk);
    const at = bytes.lastIndexOf(SEQUENCE_FIELD);
    if (at < 0) continue;
    const value = Number.parseInt(bytes.subarray(at + SEQUENCE_FIELD.length, at + SEQUENCE_FIELD.length + 12).toString("latin1"), 10);
    if (!Number.isNaN(value)) return value;
  }
  return -1;
}

/**
 * Pipes the upstream stream to the client through Bun's direct sink (no intermediate JS queue),
 * rewriting `model` and watching for the terminal event as bytes go by.
 */
export function pipeStream(reader: ByteReader, first: Buffer, request: PipeOptions): ReadableStream<Uint8Array> {
  const rewriter = createModelRewriter(request.upstreamModelId, request.tier);
  const watch = createTerminalWatch(request.format);
  // Messages has no filter ending (its `refusal` is the model's own stop): nothing to screen.
  const screen = request.format === "messages" ? undefined : createFilterScreen(request.format);
  // Messages streams name the model once (message_start); after it, bytes pass through untouched.
  const rewriteEveryChunk = request.format !== "messages" && request.upstreamModelId !== request.tier;
  let raw = request.upstreamModelId === request.tier;
  // The last two chunks sent: where the failure path finds the sequence number.
  let latest: Uint8Array | undefined;
  let previous: Uint8Array | undefined;

  let hiddenUsageChunk: string | undefined;
  let kept: Uint8Array[] | undefined = request.keepChunks ? [] : undefined;
  let keptBytes = 0;
  const transform = (chunk: Uint8Array): Uint8Array => {
    let out = chunk;
    if (request.hideUsageChunk && hiddenUsageChunk === undefined) {
      const cut = cutChatUsageChunk(out);
      out = cut.rest;
      hiddenUsageChunk = cut.removed;
    }
    if (!raw) {
      out = rewriter.push(out);
      if (!rewriteEveryChunk && rewriter.rewritten > 0) {
        const rest = rewriter.flush();
        raw = true;
        if (rest.length > 0) out = Buffer.concat([out, rest]);
      }
    }
    if (screen) out = screen.push(asBuffer(out));
    watch.observe(out);
    if (out.byteLength > 0) {
      previous = latest;
      latest = out;
      if (kept) {
        kept.push(out);
        keptBytes += out.byteLength;
        if (keptBytes > KEEP_LIMIT_BYTES) kept = undefined;
      }
    }
    return out;
  };

  let reported = false;
  const report = (clientAborted: boolean, failure?: string, withheld?: Uint8Array): void => {
    if (reported) return;
    reported = true;
    const tail = [previous, latest, withheld].filter((c): c is Uint8Array => c !== undefined);
    request.onEnd?.({
      clientAborted,
      tail,
      ...(failure !== undefined ? { failure } : {}),
      ...(hiddenUsageChunk !== undefined ? { hiddenUsageChunk } : {}),
      ...(kept && !clientAborted && failure === undefined ? { chunks: kept } : {}),
    });
  };

  /** The format's error event, numbered after the last event sent (Responses); `rest` went out last, if given. */
  const errorEvent = (error: GatewayError, rest?: Uint8Array): Buffer =>
    Buffer.from(encodeStreamError(request.format, error, lastSequenceNumber([rest, latest, previous].filter((c): c is Uint8Array => c !== undefined)) + 1));

  /** What still has to go out at the end: held-back bytes and, after a failure, the format's error event. */
  const ending = (failure: string | undefined): Uint8Array | undefined => {
    const flushed = raw ? undefined : rewriter.flush();
    const rest = screen ? screen.flush(flushed) : flushed;
    if (rest && rest.length > 0) watch.observe(rest);
    if (screen?.blocked) {
      // The stream's last line was the filtered ending: nothing more to read, the tokens are in it.
      report(false, CONTENT_FILTERED_ERROR.message, screen.blocked);
      const event = errorEvent(CONTENT_FILTERED_ERROR, rest);
      return rest && rest.length > 0 ? Buffer.concat([rest, event]) : event;
    }
    if (watch.finished) {
      report(false);
      return rest && rest.length > 0 ? rest : undefined;
    }
    // A stream never ends cleanly after a failure: the client gets the format's own error event.
    const message = failure ?? "upstream stream ended before it was complete";
    report(false, message);
    const event = errorEvent(new GatewayError(502, "api_error", message), rest);
    return rest && rest.length > 0 ? Buffer.concat([rest, event]) : event;
  };

  let filtered = false;
  /**
   * A content filter blocked the reply: the client gets the format's error event in place of the
   * filtered ending and the stream closes at once. The rest of the upstream is read afterwards,
   * off the client's time, for the usage it still reports.
   */
  const endFiltered = async (controller: ReadableStreamDirectController, blocked: Buffer): Promise<void> => {
    filtered = true;
    const written = controller.write(errorEvent(CONTENT_FILTERED_ERROR));
    const clientAborted = (typeof written === "number" ? written : await written) === 0;
    void readFilteredRest(reader, request.format, blocked).then((withheld) => report(clientAborted, CONTENT_FILTERED_ERROR.message, withheld));
  };

  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    async pull(controller) {
      let chunk: Uint8Array | undefined = first;
      let failure: string | undefined;
      for (;;) {
        const out = transform(chunk);
        if (out.byteLength > 0) {
          const written = controller.write(out);
          // 0: the client has gone away; stop reading the upstream.
          if ((typeof written === "number" ? written : await written) === 0) {
            await reader.cancel().catch(() => {});
            return report(true);
          }
          controller.flush();
        }
        if (screen?.blocked) return endFiltered(controller, screen.blocked);
        let next: Uint8Array | null;
        try {
          next = await readNext(reader);
        } catch (error) {
          if (request.client.signal.aborted) return report(true);
          const code = error !== null && typeof error === "object" && "code" in error ? String(error.code) : "error";
          failure = `upstream connection broke mid-stream (${code})`;
          break;
        }
        if (next === null) break;
        chunk = next;
      }
      const last = ending(failure);
      if (last) controller.write(last);
      // Resolving pull ends the response; an explicit close() here costs a second, slower ending.
    },
    cancel: async (reason) => {
      await reader.cancel(reason).catch(() => {});
      // A client gone while the filtered ending went out: the drain still reports, with the usage.
      if (!filtered) report(true);
    },
  };
  return new ReadableStream(source);
}

