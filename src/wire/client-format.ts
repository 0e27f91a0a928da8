import type { Converted } from "../canonical/converted.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import type { CanonicalResponse } from "../canonical/response.ts";
import type { StreamEvent } from "../canonical/stream-event.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import type { JsonObject } from "../canonical/json-object.ts";

/** What an encoder needs beyond the answer itself. Ids and time come in; encoders read no clock. */
export interface EncodeContext {
  /** The `model` shown to the client: the tier name it called. */
  readonly model: string;
  /** Unix seconds, for `created` / `created_at`. */
  readonly created: number;
  /** Chat `stream_options.include_usage`: whether the final usage chunk is sent. */
  readonly includeUsage: boolean;
}

/**
 * A stateful stream encoder written as a reducer: each canonical event gives the next state and
 * the SSE text to write (possibly ""). An `error` event yields the format's in-stream error event;
 * `finish` yields the format's terminator (`message_stop`, `[DONE]`, `response.completed`).
 */
export interface StreamEncoder<S> {
  initial(ctx: EncodeContext): S;
  step(state: S, event: StreamEvent): readonly [S, string];
  /**
   * `step` with the text appended to `out`, in pieces if it likes: the next state. What a stream is
   * written with, its pieces joined once a read; an encoder may spare its frequent events the pair
   * `step` makes and the string joined for each.
   */
  stepInto(state: S, event: StreamEvent, out: string[]): S;
}

/** One client wire format: how its requests are read and its answers written (`A`: the shape of a whole answer). */
export interface ClientFormat<S = unknown, A extends object = object> {
  readonly format: WireFormat;
  /** Throws a GatewayError (400 invalid_request_error naming the field) for a body it cannot read. */
  decodeRequest(body: JsonObject): Converted<CanonicalRequest>;
  encodeResponse(response: CanonicalResponse, ctx: EncodeContext): A;
  readonly stream: StreamEncoder<S>;
}
