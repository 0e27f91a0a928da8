import { CONTENT_FILTERED } from "../../canonical/content-filtered.ts";
import { fail, type GatewayError, gatewayErrorOf } from "../../canonical/gateway-error.ts";
import type { CanonicalResponse } from "../../canonical/response.ts";
import type { StreamEvent } from "../../canonical/stream-event.ts";
import { streamTokens, type StreamTokens } from "../../canonical/stream-tokens.ts";
import { collectStreamResponse, type StreamCollector } from "../../cache/collect-stream-response.ts";
import type { Usage } from "../../canonical/usage.ts";
import type { ClientFormat, EncodeContext } from "../../wire/client-format.ts";
import { asBuffer } from "../as-buffer.ts";
import { callFailure } from "../call-failure.ts";
import { createCallGuard, type AbortCause } from "../create-call-guard.ts";
import { classifyUpstreamError } from "../../wire/classify-upstream-error.ts";
import { createCollectedTally } from "./create-collected-tally.ts";
import { decodeUpstreamRead } from "./decode-upstream-read.ts";
import { readCappedBody, readErrorText } from "../read-capped-body.ts";
import { createSseSplitter, type SseSplitter } from "../sse/create-sse-splitter.ts";
import { endResponse, keepClientAlive, newClientLink, sendToClient } from "../sse/client-link.ts";
import { createBeforeLastBytes, type BeforeLastBytes } from "../sse/create-before-last-bytes.ts";
import { createStreamClock, type StreamLimits } from "../sse/create-stream-clock.ts";
import { createTextTally, type TextTally } from "../sse/create-text-tally.ts";
import { classifyErrorEvent } from "../sse/classify-error-event.ts";
import { readNext, type ByteReader } from "../sse/read-first-event.ts";
import type { SseEvent } from "../../wire/sse-event.ts";
import { streamFailures } from "../sse/stream-failures.ts";
import type { UpstreamAdapter } from "../../wire/upstream-adapter.ts";
import type { WireApi } from "../../wire/wire-api.ts";
import { upstreamFetchTimeout } from "../upstream-fetch-timeout.ts";
import type { StreamOutcome } from "./stream-outcome.ts";

export interface TranslatedRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The body in the upstream's format, effort already set. */
  readonly body: string;
  readonly stream: boolean;
  /** The client's request: its going away aborts the upstream call. */
  readonly client: Request;
  /** Deadline for the first event (stream) or the whole body (non-stream), ms. */
  readonly timeoutMs: number;
  readonly adapter: UpstreamAdapter;
  /** The API the client called, which its answer is written in. */
  readonly clientApi: WireApi;
  readonly encode: EncodeContext;
  /** Called once when a committed stream has ended, however it ended. */
  readonly onStreamEnd?: (outcome: StreamOutcome) => void;
  /** Rebuild the whole answer from the stream (for the response cache). */
  readonly collect?: boolean;
  /**
   * Streams: called once just before the last bytes go out, so what the stream holds is free by
   * then. A stream that ends normally passes its tokens, as `onStreamEnd` will report them (nothing
   * can add to them then), so they can be counted with the slot.
   */
  readonly beforeLastBytes?: BeforeLastBytes;
  /** Stream keep-alive and idle limits, and the largest event and non-stream body read. */
  readonly limits: StreamLimits & { readonly maxEventBytes: number; readonly maxBodyBytes: number };
}

export interface Translated {
  readonly body: ReadableStream<Uint8Array> | string;
  readonly contentType: string;
  /** Non-stream only: the decoded answer (usage, stop reason, cacheable content). */
  readonly response?: CanonicalResponse;
  readonly warnings: readonly string[];
}

const guard = createCallGuard();
const clock = createStreamClock();

/**
 * Cross-format path: the upstream answers in its own API and the client gets its own format,
 * through the canonical model. Nothing is committed to the client before the first canonical
 * event (stream) or the whole decoded body (non-stream), so until then another model may be tried.
 */
export async function forwardTranslated(request: TranslatedRequest): Promise<Translated> {
  const upstream = new AbortController();
  let cause: AbortCause | undefined;
  const release = guard.watch(request.timeoutMs, request.client, (why) => {
    cause = why;
    upstream.abort();
  });
  try {
    const timeout = upstreamFetchTimeout(request.timeoutMs, request.limits.idleMs);
    const response = await fetch(request.url, { method: "POST", headers: request.headers, body: request.body, signal: upstream.signal, timeout });
    if (!response.ok) {
      const text = await readErrorText(response);
      throw classifyUpstreamError(response.status, text, response.headers);
    }
    return request.stream ? await startStream(response, request) : await readAnswer(response, request);
  } catch (error) {
    throw callFailure(error, request.timeoutMs, cause);
  } finally {
    release();
  }
}

async function readAnswer(response: Response, request: TranslatedRequest): Promise<Translated> {
  const bytes = await readCappedBody(response, request.limits.maxBodyBytes);
  let parsed: unknown;
  try {
    parsed = JSON.parse(asBuffer(bytes).toString("utf8"));
  } catch {
    throw fail("UpstreamMalformed", "upstream sent a malformed response body");
  }
  const decoded = request.adapter.decodeResponse(parsed);
  const body = JSON.stringify(request.clientApi.client.encodeResponse(decoded.value, request.encode));
  return { body, contentType: "application/json", response: decoded.value, warnings: decoded.warnings };
}

/** A failure the decoder found before anything was sent (a malformed or cut stream): another candidate may do better. */
const failoverError = (event: Extract<StreamEvent, { type: "error" }>): GatewayError =>
  gatewayErrorOf(event.error.status, event.error.type, event.error.message, { retryable: true });

interface Translation {
  readonly reader: ByteReader;
  readonly splitter: SseSplitter;
  decoder: unknown;
  encoder: unknown;
  readonly outcome: { usage?: StreamOutcome["usage"]; startUsage?: Usage; stopReason?: StreamOutcome["stopReason"]; error?: string; ended: boolean };
  readonly collector: StreamCollector | undefined;
  /** The text sent to the client, counted (read from the collector's when there is one). */
  readonly text: TextTally;
}

/**
 * A read's canonical events and its encoded text in pieces: one list of each for every stream of
 * the process, each filled and emptied with no await between, so no stream sees another's. Lists
 * of a read's own grew anew for each (a 2,000-event answer's read: 6,000 pieces), which was a fifth
 * of what decoding and encoding the answer allocated (107 of 575 KB, in process).
 */
const READ_EVENTS: StreamEvent[] = [];
const PARTS: string[] = [];

/** Counts what an event sends to the client, and what the upstream said at the start. */
function tally(t: Translation, event: StreamEvent): void {
  switch (event.type) {
    case "text_delta":
    case "thinking_delta":
      t.text.add(event.text);
      return;
    case "tool_args_delta":
      t.text.add(event.fragment);
      return;
    case "block_start":
      if (event.block.type === "tool_call") t.text.add(event.block.name);
      return;
    case "start":
      if (event.usage) t.outcome.startUsage = event.usage;
      return;
    default:
      return;
  }
}

/**
 * Runs canonical events through the client format's encoder, noting how the answer ends; their
 * texts come back joined, so a read's events go to the client in one write. Written one by one, a
 * 2,000-event answer in one burst cost about 8% more CPU (a Bun server running only this pipe,
 * 14 alternating rounds, 13 to the joined form). An encoder that can append its text to the
 * stream's list (`stepInto`) makes no pair and no joined string of its own for each event: a
 * delta's pieces (its head, the text as it came, its tail) are copied once, by the read's join.
 */
function encodeEvents(t: Translation, events: readonly StreamEvent[], format: ClientFormat): string {
  const parts = PARTS;
  // Empty even after an encoder threw midway: what it left is another stream's text.
  parts.length = 0;
  for (const original of events) {
    if (t.outcome.ended) break;
    let event = original;
    if (original.type === "finish") {
      // The tokens were spent either way: the usage is the answer's, filtered or not.
      t.outcome.usage = original.usage;
      t.outcome.stopReason = original.stopReason;
      t.outcome.ended = true;
      if (original.stopReason.unified === "content_filter") {
        event = CONTENT_FILTERED;
        t.outcome.error = CONTENT_FILTERED.error.message;
      }
    } else if (original.type === "error") {
      t.outcome.error = original.error.message;
      t.outcome.ended = true;
    }
    if (t.collector) collectStreamResponse(t.collector, event);
    // After the collector: the piece that outgrows it is counted by the tally it hands its text to.
    tally(t, event);
    t.encoder = format.stream.stepInto(t.encoder, event, parts);
  }
  const text = parts.length === 1 ? parts[0]! : parts.join("");
  parts.length = 0;
  return text;
}

/** The stream's tokens, as `report` and the last bytes' hook pass them. */
function endedTokens(t: Translation): StreamTokens {
  return streamTokens(t.text, t.outcome.usage, t.outcome.startUsage);
}

/** The canonical error event that ends a stream the gateway gives up on. */
const errorEvent = (error: GatewayError): StreamEvent => ({ type: "error", error: { status: error.status, type: error.type, message: error.message } });

const onlyStart = (events: readonly StreamEvent[]): boolean => events.every((event) => event.type === "start");

/**
 * Throws the upstream's own error event as a failed call, classified as the same-format path does
 * (so an overloaded upstream is retried alike on both): used before anything was sent.
 */
function refuseErrorEvent(adapter: UpstreamAdapter, event: SseEvent): void {
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.data);
  } catch {
    return;
  }
  const failure = classifyErrorEvent(adapter, event, parsed);
  if (failure) throw failure;
}

const NO_EVENTS: readonly StreamEvent[] = [];

/**
 * The canonical events of a read (see decodeUpstreamRead), and the error that ends a stream whose
 * event grew too large: in READ_EVENTS, so to be used before anything is awaited, or copied.
 */
function decodeBytes(t: Translation, bytes: Uint8Array | null, adapter: UpstreamAdapter, maxEventBytes: number, check?: (event: SseEvent) => void): readonly StreamEvent[] {
  READ_EVENTS.length = 0;
  const events = decodeUpstreamRead(t, bytes, adapter, maxEventBytes, READ_EVENTS, check);
  if (t.splitter.overflowed) events.push(errorEvent(streamFailures.eventTooLarge(maxEventBytes)));
  return events;
}

async function startStream(response: Response, request: TranslatedRequest): Promise<Translated> {
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.includes("text/event-stream") || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw fail("UpstreamMalformed", "upstream did not answer with an event stream");
  }
  const { adapter } = request;
  const format = request.clientApi.client;
  const collected = request.collect ? createCollectedTally() : undefined;
  const t: Translation = {
    reader: response.body.getReader(),
    splitter: createSseSplitter(request.limits.maxEventBytes),
    decoder: adapter.stream.initial(),
    encoder: format.stream.initial(request.encode),
    outcome: { ended: false },
    collector: collected?.collector,
    text: collected?.tally ?? createTextTally(),
  };
  let first = NO_EVENTS;
  try {
    // A start alone commits nothing: an upstream that fails right after it (a Responses
    // `response.failed` after `response.created`) is still an HTTP error, or another model.
    while (onlyStart(first)) {
      const bytes = await readNext(t.reader);
      // Copied: the next read is awaited (no spread of every event as an argument).
      first = first.concat(decodeBytes(t, bytes, adapter, request.limits.maxEventBytes, (event) => refuseErrorEvent(adapter, event)));
      if (bytes === null && onlyStart(first)) {
        throw fail("UpstreamCut", "upstream closed the stream before the first event");
      }
    }
    const failed = first.find((event) => event.type !== "start");
    if (failed?.type === "error") throw failoverError(failed);
  } catch (error) {
    await t.reader.cancel().catch(() => {});
    throw error;
  }
  return { body: pipeTranslation(t, first, request), contentType: "text/event-stream; charset=utf-8", response: undefined, warnings: [] };
}

function pipeTranslation(t: Translation, first: readonly StreamEvent[], request: TranslatedRequest): ReadableStream<Uint8Array> {
  const { adapter, limits } = request;
  const format = request.clientApi.client;
  const keepalive = request.clientApi.keepalive;
  let reported = false;
  let idled = false;
  const link = newClientLink();
  const report = (clientAborted: boolean): void => {
    if (reported) return;
    reported = true;
    const { outcome } = t;
    // Every member, in one order, as the pass-through path's outcome has them: one shape for both.
    request.onStreamEnd?.({
      ...endedTokens(t),
      stopReason: outcome.stopReason,
      // A client that left is nobody's failure: what the gateway would have sent it is not an error.
      error: clientAborted ? undefined : outcome.error,
      clientAborted,
      response: t.collector?.response ?? undefined,
      raw: undefined,
    });
  };
  const beforeLastBytes = createBeforeLastBytes(request.beforeLastBytes);
  const pipe = async (controller: ReadableStreamDirectController): Promise<void> => {
    link.beat = clock.watch(limits, {
      quiet: () => keepClientAlive(link, controller, keepalive, t.outcome.ended),
      idle: () => {
        idled = true;
        void t.reader.cancel().catch(() => {});
      },
    });
    let events = first;
    for (;;) {
      const text = encodeEvents(t, events, format);
      // A finish without an error ends the stream normally: after it nothing is decoded or counted.
      if (t.outcome.ended) {
        const freeing = beforeLastBytes(t.outcome.error === undefined ? endedTokens(t) : undefined);
        if (freeing) await freeing;
      }
      // The last write is not flushed: the response's end, right after, sends it with the closing chunk.
      const sending = sendToClient(link, controller, text, !t.outcome.ended);
      if (!(sending instanceof Promise ? await sending : sending)) break;
      if (t.outcome.ended) {
        // The client has the whole answer: leaving now is no abort.
        report(false);
        endResponse(controller);
        break;
      }
      let bytes: Uint8Array | null;
      try {
        const reading = readNext(t.reader);
        bytes = reading instanceof Promise ? await reading : reading;
      } catch (error) {
        if (link.gone || request.client.signal.aborted) {
          link.gone = true;
          break;
        }
        const code = error !== null && typeof error === "object" && "code" in error ? String(error.code) : "error";
        events = [errorEvent(streamFailures.broken(code))];
        continue;
      }
      if (link.gone) break;
      link.beat.heard++;
      if (bytes === null && idled) {
        events = [errorEvent(streamFailures.idle(limits.idleMs))];
        continue;
      }
      // Encoded at the top of the loop, before anything is awaited.
      events = decodeBytes(t, bytes, adapter, limits.maxEventBytes);
      if (bytes === null && !t.outcome.ended && !events.some((e) => e.type === "finish" || e.type === "error")) {
        // The decoder owes an error for a cut stream; if it did not say so, the gateway does.
        events = [...events, errorEvent(streamFailures.incomplete())];
      }
    }
    // After the terminal event nothing more is wanted (a trailing `[DONE]` at most).
    await t.reader.cancel().catch(() => {});
    report(link.gone);
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
    cancel: async (reason) => {
      link.gone = true;
      link.beat?.stop();
      await t.reader.cancel(reason).catch(() => {});
      report(true);
    },
  };
  return new ReadableStream(source);
}
