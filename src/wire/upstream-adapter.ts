import type { Converted } from "../canonical/converted.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import type { CanonicalResponse } from "../canonical/response.ts";
import type { StreamEvent } from "../canonical/stream-event.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import type { ModelConfig } from "../config/schema.ts";
import type { SseEvent } from "./sse-event.ts";
import type { JsonObject } from "../canonical/json-object.ts";

export interface UpstreamRequestContext {
  /** The id sent as `model`. */
  readonly upstreamModelId: string;
  /** Capabilities (limits, vision, tools) the encoder may need to respect. */
  readonly model: ModelConfig;
}

/**
 * A reducer over the upstream's SSE events. `step` turns one upstream event into zero or more
 * canonical events; `end` is called when the upstream body ends and returns what is still owed:
 * nothing after a clean finish, an `error` event when the stream was cut before its terminator.
 * A malformed event yields an `error` event (status 502), never an exception.
 */
export interface StreamDecoder<S> {
  initial(): S;
  step(state: S, event: SseEvent): readonly [S, readonly StreamEvent[]];
  /**
   * `step` with the canonical events appended to `out`: the next state. What a stream is read with,
   * one list a read; a decoder may spare its frequent events the list and the pair `step` makes.
   */
  stepInto(state: S, event: SseEvent, out: StreamEvent[]): S;
  /**
   * Optional, for events that leave the decoder's state the same object (updated in place, or
   * unchanged): reads the whole events at `bytes[at]` that it can read without their text being
   * split out first (a learned shape's events, a Messages delta), appending their canonical events
   * to `out`; returns where it stopped, `at` when it read none. It is called only where an event
   * begins: what it leaves goes to the SSE splitter and `stepInto`, so it may stop at any event.
   * An event longer than `maxEventBytes` it leaves to the splitter, which refuses it.
   */
  stepBytes?(state: S, bytes: Uint8Array, at: number, maxEventBytes: number, out: StreamEvent[]): number;
  end(state: S): readonly StreamEvent[];
}

/**
 * One upstream API. The effort is not the adapter's job: the pipeline applies the API's effort
 * setter (`WireApi.setEffort`) to the encoded body afterwards, replacing any thinking fields.
 */
export interface UpstreamAdapter<S = unknown> {
  readonly api: WireFormat;
  encodeRequest(request: CanonicalRequest, ctx: UpstreamRequestContext): Converted<JsonObject>;
  /** Throws a GatewayError (502 upstream_error) for a body that is not a valid answer. */
  decodeResponse(body: unknown): Converted<CanonicalResponse>;
  readonly stream: StreamDecoder<S>;
  /** The upstream's own error event in this API's stream, read; undefined for any other event. */
  readErrorEvent(name: string | undefined, event: JsonObject): UpstreamErrorEvent | undefined;
}

/** What an upstream's error event says: its error's `type` and `code` (whichever it has) and its message. */
export interface UpstreamErrorEvent {
  readonly kinds: readonly unknown[];
  readonly message: string | undefined;
}
