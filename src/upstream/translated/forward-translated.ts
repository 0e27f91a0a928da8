import { CONTENT_FILTERED } from "../../canonical/content-filtered.ts";
import { GatewayError, type GatewayErrorType } from "../../canonical/gateway-error.ts";
import type { CanonicalResponse } from "../../canonical/response.ts";
import type { StreamEvent } from "../../canonical/stream-event.ts";
import { collectStreamResponse, newStreamCollector, type StreamCollector } from "../../cache/collect-stream-response.ts";
import type { ClientFormat, EncodeContext } from "../../formats/client-format.ts";
import { callFailure } from "../call-failure.ts";
import { createCallGuard, type AbortCause } from "../create-call-guard.ts";
import { classifyUpstreamError } from "../classify-upstream-error.ts";
import { createSseSplitter, type SseSplitter } from "../sse/create-sse-splitter.ts";
import { readNext, type ByteReader } from "../sse/read-first-event.ts";
import type { UpstreamAdapter } from "../types.ts";
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
  readonly format: ClientFormat;
  readonly encode: EncodeContext;
  /** Called once when a committed stream has ended, however it ended. */
  readonly onStreamEnd?: (outcome: StreamOutcome) => void;
  /** Rebuild the whole answer from the stream (for the response cache). */
  readonly collect?: boolean;
}

export interface Translated {
  readonly body: ReadableStream<Uint8Array> | string;
  readonly contentType: string;
  /** Non-stream only: the decoded answer (usage, stop reason, cacheable content). */
  readonly response?: CanonicalResponse;
  readonly warnings: readonly string[];
}

const guard = createCallGuard();

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
    const response = await fetch(request.url, { method: "POST", headers: request.headers, body: request.body, signal: upstream.signal });
    if (!response.ok) {
      const text = await response.text().catch(() => "");
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
  const text = await response.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new GatewayError(502, "api_error", "upstream sent a malformed response body", { retryable: true });
  }
  const decoded = request.adapter.decodeResponse(parsed);
  const body = JSON.stringify(request.format.encodeResponse(decoded.value, request.encode));
  return { body, contentType: "application/json", response: decoded.value, warnings: decoded.warnings };
}

/** A canonical error event before anything was sent: another candidate may do better. */
const failoverError = (event: Extract<StreamEvent, { type: "error" }>): GatewayError =>
  new GatewayError(event.error.status, event.error.type as GatewayErrorType, event.error.message, { retryable: true });

interface Translation {
  readonly reader: ByteReader;
  readonly splitter: SseSplitter;
  decoder: unknown;
  encoder: unknown;
  readonly outcome: { usage?: StreamOutcome["usage"]; stopReason?: StreamOutcome["stopReason"]; error?: string; ended: boolean };
  readonly collector: StreamCollector | undefined;
}

/** Runs canonical events through the client format's encoder, noting how the answer ends. */
function encodeEvents(t: Translation, events: readonly StreamEvent[], format: ClientFormat): string {
  let out = "";
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
    const [next, text] = format.stream.step(t.encoder, event);
    t.encoder = next;
    out += text;
  }
  return out;
}

function decodeBytes(t: Translation, bytes: Uint8Array | null, adapter: UpstreamAdapter): StreamEvent[] {
  const events: StreamEvent[] = [];
  const upstreamEvents = bytes === null ? t.splitter.end() : t.splitter.push(bytes);
  for (const upstreamEvent of upstreamEvents) {
    const [next, produced] = adapter.stream.step(t.decoder, upstreamEvent);
    t.decoder = next;
    events.push(...produced);
  }
  if (bytes === null) events.push(...adapter.stream.end(t.decoder));
  return events;
}

const onlyStart = (events: readonly StreamEvent[]): boolean => events.every((event) => event.type === "start");

async function startStream(response: Response, request: TranslatedRequest): Promise<Translated> {
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.includes("text/event-stream") || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw new GatewayError(502, "api_error", "upstream did not answer with an event stream", { retryable: true });
  }
  const { adapter, format } = request;
  const t: Translation = {
    reader: response.body.getReader(),
    splitter: createSseSplitter(),
    decoder: adapter.stream.initial(),
    encoder: format.stream.initial(request.encode),
    outcome: { ended: false },
    collector: request.collect ? newStreamCollector() : undefined,
  };
  const first: StreamEvent[] = [];
  try {
    // A start alone commits nothing: an upstream that fails right after it (a Responses
    // `response.failed` after `response.created`) is still an HTTP error, or another model.
    while (onlyStart(first)) {
      const bytes = await readNext(t.reader);
      first.push(...decodeBytes(t, bytes, adapter));
      if (bytes === null && onlyStart(first)) {
        throw new GatewayError(502, "api_error", "upstream closed the stream before the first event", { retryable: true });
      }
    }
    const failed = first.find((event) => event.type !== "start");
    if (failed?.type === "error") throw failoverError(failed);
  } catch (error) {
    await t.reader.cancel().catch(() => {});
    throw error;
  }
  return { body: pipeTranslation(t, first, request), contentType: "text/event-stream; charset=utf-8", warnings: [] };
}

function pipeTranslation(t: Translation, first: StreamEvent[], request: TranslatedRequest): ReadableStream<Uint8Array> {
  const { adapter, format } = request;
  let reported = false;
  const report = (clientAborted: boolean): void => {
    if (reported) return;
    reported = true;
    const response = t.collector?.response;
    request.onStreamEnd?.({ ...t.outcome, clientAborted, ...(response ? { response } : {}) });
  };
  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    async pull(controller) {
      let events = first;
      for (;;) {
        const text = encodeEvents(t, events, format);
        if (text !== "") {
          const written = controller.write(text);
          if ((typeof written === "number" ? written : await written) === 0) {
            await t.reader.cancel().catch(() => {});
            return report(true);
          }
          controller.flush();
        }
        if (t.outcome.ended) break;
        let bytes: Uint8Array | null;
        try {
          bytes = await readNext(t.reader);
        } catch (error) {
          if (request.client.signal.aborted) return report(true);
          const code = error !== null && typeof error === "object" && "code" in error ? String(error.code) : "error";
          events = [{ type: "error", error: { status: 502, type: "api_error", message: `upstream connection broke mid-stream (${code})` } }];
          continue;
        }
        events = decodeBytes(t, bytes, adapter);
        if (bytes === null && !t.outcome.ended) {
          // The decoder owes an error for a cut stream; if it did not say so, the gateway does.
          events.push({ type: "error", error: { status: 502, type: "api_error", message: "upstream stream ended before it was complete" } });
        }
      }
      // After the terminal event nothing more is wanted (a trailing `[DONE]` at most).
      await t.reader.cancel().catch(() => {});
      report(false);
    },
    cancel: async (reason) => {
      await t.reader.cancel(reason).catch(() => {});
      report(true);
    },
  };
  return new ReadableStream(source);
}
