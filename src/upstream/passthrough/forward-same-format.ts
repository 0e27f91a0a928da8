import { fail } from "../../canonical/gateway-error.ts";
import { classifyUpstreamError } from "../../wire/classify-upstream-error.ts";
import { asBuffer } from "../as-buffer.ts";
import { callFailure } from "../call-failure.ts";
import { createCallGuard, type AbortCause } from "../create-call-guard.ts";
import { joinInScratch, type BodyPieces } from "../join-in-scratch.ts";
import { readCappedBody, readErrorText } from "../read-capped-body.ts";
import { upstreamFetchTimeout } from "../upstream-fetch-timeout.ts";
import { readFirstEvent, type ByteReader } from "../sse/read-first-event.ts";
import { checkFirstEvent } from "./check-first-event.ts";
import { rewriteModel } from "./create-model-rewriter.ts";
import type { WireApi } from "../../wire/wire-api.ts";
import { pipeStream, type PipeEnd, type PipeOptions } from "./pipe-stream.ts";

export interface ForwardRequest {
  readonly url: string;
  readonly headers: Record<string, string>;
  /** The request body: pieces to join when it is cut from the client's own bytes. */
  readonly body: string | BodyPieces;
  readonly stream: boolean;
  /** The client's request: its going away aborts the upstream call (its signal is read lazily: see CallGuard). */
  readonly client: Request;
  /** Deadline for the first event (stream) or the whole body (non-stream), ms. */
  readonly timeoutMs: number;
  /** The API the client and the upstream both speak. */
  readonly api: WireApi;
  readonly upstreamModelId: string;
  /** What the client sees in `model`. */
  readonly tier: string;
  /** Chat streams: take the usage chunk out (the gateway asked for it, the client did not). */
  readonly hideUsageChunk?: boolean;
  /** Streams: keep the chunks sent so the whole answer can be rebuilt at the end. */
  readonly keepChunks?: boolean;
  /** Streams: called once when the stream has ended. */
  readonly onEnd?: (end: PipeEnd & { readonly firstEvent: string }) => void;
  /** Streams: called once just before the last bytes go out, with the tokens of a stream that ended normally (see PipeOptions). */
  readonly beforeLastBytes?: PipeOptions["beforeLastBytes"];
  /** Stream keep-alive and idle limits, and the largest event and non-stream body read. */
  readonly limits: PipeOptions["limits"] & { readonly maxBodyBytes: number };
}

export interface Forwarded {
  readonly body: ReadableStream<Uint8Array> | Uint8Array;
  readonly contentType: string;
}

async function openUpstream(request: ForwardRequest, signal: AbortSignal): Promise<Response> {
  const timeout = upstreamFetchTimeout(request.timeoutMs, request.limits.idleMs);
  // Joined at the call, which copies the scratch's view before anything else can run (see joinInScratch).
  const body = typeof request.body === "string" ? request.body : joinInScratch(request.body);
  const response = await fetch(request.url, { method: "POST", headers: request.headers, body, signal, timeout });
  if (!response.ok) {
    const text = await readErrorText(response);
    throw classifyUpstreamError(response.status, text, response.headers);
  }
  return response;
}

const guard = createCallGuard();

/**
 * Same-format fast path: the request goes upstream as the client sent it (model and effort already
 * set), and the answer comes back byte for byte but for the `model` field, which shows the tier.
 * For streams, nothing is committed until the first content event has arrived and all before it are sound.
 */
export async function forwardSameFormat(request: ForwardRequest): Promise<Forwarded> {
  // One controller serves both causes of abort: the client leaving and the first-byte deadline.
  const upstream = new AbortController();
  let cause: AbortCause | undefined;
  const release = guard.watch(request.timeoutMs, request.client, (why) => {
    cause = why;
    upstream.abort();
  });
  try {
    const response = await openUpstream(request, upstream.signal);
    return request.stream ? await startStream(response, request) : await readBody(response, request);
  } catch (error) {
    throw callFailure(error, request.timeoutMs, cause);
  } finally {
    release();
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
  const bytes = await readCappedBody(response, request.limits.maxBodyBytes);
  if (!looksComplete(bytes)) {
    throw fail("UpstreamMalformed", "upstream sent a malformed response body");
  }
  const contentType = response.headers.get("content-type") ?? "application/json";
  const body = request.upstreamModelId === request.tier ? bytes : rewriteModel(asBuffer(bytes), request.upstreamModelId, request.tier)[0];
  return { body, contentType };
}

async function startStream(response: Response, request: ForwardRequest): Promise<Forwarded> {
  const contentType = response.headers.get("content-type") ?? "";
  if (!contentType.includes("text/event-stream") || !response.body) {
    await response.body?.cancel().catch(() => {});
    throw fail("UpstreamMalformed", "upstream did not answer with an event stream");
  }
  const reader: ByteReader = response.body.getReader();
  try {
    // Nothing is committed before the first content: an error right after the opening events is still a failed call.
    const first = await readFirstEvent(reader, request.limits.maxEventBytes, (event) => checkFirstEvent(request.api, event));
    if (!first) throw fail("UpstreamCut", "upstream closed the stream before the first event");
    const { api, upstreamModelId, tier, client, onEnd, hideUsageChunk, keepChunks, limits, beforeLastBytes } = request;
    // Every member, in the interface's order: one shape for every stream's options.
    const options: PipeOptions = {
      api,
      upstreamModelId,
      tier,
      client,
      limits,
      onEnd: onEnd ? (end: PipeEnd) => onEnd({ ...end, firstEvent: first.event.data }) : undefined,
      beforeLastBytes,
      hideUsageChunk: hideUsageChunk === true,
      keepChunks: keepChunks === true,
    };
    return { body: pipeStream(reader, first.buffered, options), contentType: "text/event-stream; charset=utf-8" };
  } catch (error) {
    await reader.cancel().catch(() => {});
    throw error;
  }
}
