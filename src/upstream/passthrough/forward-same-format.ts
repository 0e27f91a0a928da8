import { GatewayError } from "../../canonical/gateway-error.ts";
import type { WireFormat } from "../../canonical/wire-format.ts";
import { classifyUpstreamError, upstreamErrorMessage } from "../classify-upstream-error.ts";
import { isJsonObject } from "../effort-result.ts";
import { readFirstEvent, readNext, type ByteReader, type SseEvent } from "../sse/read-first-event.ts";
import { encodeStreamError } from "../../formats/encode-stream-error.ts";
import { createDeadlines } from "../create-deadlines.ts";
import { createModelRewriter, rewriteModel } from "./create-model-rewriter.ts";
import { createTerminalWatch } from "./create-terminal-watch.ts";

export interface ForwardRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  readonly body: string;
  readonly stream: boolean;
  /** Aborts the upstream call (the client went away). */
  readonly signal: AbortSignal;
  /** Deadline for the first event (stream) or the whole body (non-stream), ms. */
  readonly timeoutMs: number;
  readonly format: WireFormat;
  readonly upstreamModelId: string;
  /** What the client sees in `model`. */
  readonly tier: string;
}

export interface Forwarded {
  readonly body: ReadableStream<Uint8Array> | Uint8Array;
  readonly contentType: string;
}

const unreachable = (reason: string): GatewayError =>
  new GatewayError(502, "api_error", `upstream unreachable: ${reason}`, { retryable: true });

/** An upstream event that reports a failure instead of content: each API's in-stream error shapes. */
function inStreamFailure(event: SseEvent, parsed: unknown): GatewayError | undefined {
  if (!isJsonObject(parsed)) return undefined;
  const type = parsed.type;
  if (event.event === "error" || type === "error" || type === "response.failed" || (type === undefined && "error" in parsed)) {
    const inner = isJsonObject(parsed.error) ? parsed.error : isJsonObject(parsed.response) ? parsed.response.error : undefined;
    const kind = isJsonObject(inner) ? (inner.type ?? inner.code) : undefined;
    const status = kind === "overloaded_error" || kind === "service_unavailable_error" ? 529 : kind === "rate_limit_error" ? 429 : 500;
    return classifyUpstreamError(status, JSON.stringify({ error: { message: upstreamErrorMessage(parsed) ?? upstreamErrorMessage(parsed.response) } }), null);
  }
  return undefined;
}

/** Checks the first event before anything is committed to the client: a failure here may still fail over. */
function checkFirstEvent(event: SseEvent): void {
  if (event.data === "[DONE]") throw new GatewayError(502, "api_error", "upstream stream ended before any content", { retryable: true });
  let parsed: unknown;
  try {
    parsed = JSON.parse(event.data);
  } catch {
    throw new GatewayError(502, "api_error", "upstream sent a malformed first event", { retryable: true });
  }
  const failure = inStreamFailure(event, parsed);
  if (failure) throw failure;
}

const timedOut = (ms: number): GatewayError =>
  new GatewayError(504, "timeout_error", `upstream did not answer within ${ms} ms`, { retryable: true });

/** Why an upstream call failed before committing: the client left, the deadline passed, or the network. */
function failureOf(error: unknown, request: ForwardRequest, expired: boolean): GatewayError {
  if (error instanceof GatewayError) return error;
  if (request.signal.aborted) return new GatewayError(499, "api_error", "client closed the request");
  if (expired) return timedOut(request.timeoutMs);
  return unreachable(error instanceof Error ? error.message : String(error));
}

async function openUpstream(request: ForwardRequest, signal: AbortSignal): Promise<Response> {
  const response = await fetch(request.url, { method: "POST", headers: request.headers, body: request.body, signal });
  if (!response.ok) {
    const text = await response.text().catch(() => "");
    throw classifyUpstreamError(response.status, text, response.headers.get("retry-after"));
  }
  return response;
}

const SEQUENCE_FIELD = Buffer.from('"sequence_number":');

/** The last Responses `sequence_number` in a chunk, so an appended error event continues the count. */
function lastSequenceNumber(chunk: Uint8Array, previous: number): number {
  const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
  const at = bytes.lastIndexOf(SEQUENCE_FIELD);
  if (at < 0) return previous;
  const value = Number.parseInt(bytes.subarray(at + SEQUENCE_FIELD.length, at + SEQUENCE_FIELD.length + 12).toString("latin1"), 10);
  return Number.isNaN(value) ? previous : value;
}

/**
 * Pipes the upstream stream to the client through Bun's direct sink (no intermediate JS queue),
 * rewriting `model` and watching for the terminal event as bytes go by.
 */
function pipeStream(reader: ByteReader, first: Buffer, request: ForwardRequest): ReadableStream<Uint8Array> {
  const rewriter = createModelRewriter(request.upstreamModelId, request.tier);
  const watch = createTerminalWatch(request.format);
  // Messages streams name the model once (message_start); after it, bytes pass through untouched.
  const rewriteEveryChunk = request.format !== "messages" && request.upstreamModelId !== request.tier;
  let raw = request.upstreamModelId === request.tier;
  let sequence = -1;

  const transform = (chunk: Uint8Array): Uint8Array => {
    let out = chunk;
    if (!raw) {
      out = rewriter.push(chunk);
      if (!rewriteEveryChunk && rewriter.rewritten > 0) {
        const rest = rewriter.flush();
        raw = true;
        if (rest.length > 0) out = Buffer.concat([out, rest]);
      }
    }
    watch.observe(out);
    if (request.format === "responses") sequence = lastSequenceNumber(out, sequence);
    return out;
  };

  /** What still has to go out at the end: held-back bytes and, after a failure, the format's error event. */
  const ending = (failure: string | undefined): Uint8Array | undefined => {
    const rest = raw ? undefined : rewriter.flush();
    if (rest && rest.length > 0) watch.observe(rest);
    if (watch.finished) return rest && rest.length > 0 ? rest : undefined;
    // A stream never ends cleanly after a failure: the client gets the format's own error event.
    const error = new GatewayError(502, "api_error", failure ?? "upstream stream ended before it was complete");
    const event = Buffer.from(encodeStreamError(request.format, error, sequence + 1));
    return rest && rest.length > 0 ? Buffer.concat([rest, event]) : event;
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
            return;
          }
          controller.flush();
        }
        let next: Uint8Array | null;
        try {
          next = await readNext(reader);
        } catch (error) {
          if (request.signal.aborted) return;
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
    },
  };
  return new ReadableStream(source);
}

/**
 * Same-format fast path: the request goes upstream as the client sent it (model and effort already
 * set), and the answer comes back byte for byte but for the `model` field, which shows the tier.
 * For streams, nothing is committed until the first upstream event has arrived and is sound.
 */
const deadlines = createDeadlines();

export async function forwardSameFormat(request: ForwardRequest): Promise<Forwarded> {
  // One controller serves both causes of abort: the client leaving and the first-byte deadline.
  const upstream = new AbortController();
  const onClientGone = (): void => upstream.abort();
  request.signal.addEventListener("abort", onClientGone, { once: true });
  let expired = false;
  const untrack = deadlines.track(request.timeoutMs, () => {
    expired = true;
    upstream.abort();
  });
  try {
    const response = await openUpstream(request, upstream.signal);
    return request.stream ? await startStream(response, request) : await readBody(response, request);
  } catch (error) {
    throw failureOf(error, request, expired);
  } finally {
    untrack();
  }
}

const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;

/** A complete JSON object, judged by its first and last non-blank bytes: a truncated body fails this. */
function looksComplete(bytes: Uint8Array): boolean {
  let start = 0;
  let end = bytes.length - 1;
  while (start <= end && bytes[start]! <= 0x20) start++;
  while (end >= start && bytes[end]! <= 0x20) end--;
  return bytes[start] === OPEN_BRACE && bytes[end] === CLOSE_BRACE;
}

/** Non-stream: the body as bytes, checked for completeness without a parse, with `model` rewritten. */
async function readBody(response: Response, request: ForwardRequest): Promise<Forwarded> {
  const bytes = new Uint8Array(await response.arrayBuffer());
  if (!looksComplete(bytes)) {
    throw new GatewayError(502, "api_error", "upstream sent a malformed response body", { retryable: true });
  }
  const contentType = response.headers.get("content-type") ?? "application/json";
  const body = request.upstreamModelId === request.tier ? bytes : rewriteModel(Buffer.from(bytes.buffer), request.upstreamModelId, request.tier)[0];
  return { body, contentType };
}

async function startStream(response: Response, request: ForwardRequest): Promise<Forwarded> {
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.includes("text/event-stream") || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw new GatewayError(502, "api_error", "upstream did not answer with an event stream", { retryable: true });
  }
  const reader: ByteReader = response.body.getReader();
  try {
    const first = await readFirstEvent(reader);
    if (!first) throw new GatewayError(502, "api_error", "upstream closed the stream before the first event", { retryable: true });
    checkFirstEvent(first.event);
    return { body: pipeStream(reader, first.buffered, request), contentType: "text/event-stream; charset=utf-8" };
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
}
