import type { Effort } from "../canonical/effort.ts";
import type { GatewayError } from "../canonical/gateway-error.ts";
import type { JsonObject } from "../canonical/json-object.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import type { Usage } from "../canonical/usage.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import type { ModelConfig } from "../config/schema.ts";
import type { ClientFormat } from "./client-format.ts";
import type { EffortResult } from "./effort-result.ts";
import type { InspectContext, StreamInspector } from "./stream-inspector.ts";
import type { UpstreamAdapter } from "./upstream-adapter.ts";

/**
 * Everything the gateway knows of one wire API, as clients call it and as upstreams answer it.
 * Each folder under `src/wire/` exports one; the rest of the gateway holds an API's name and asks
 * its object, so that no code outside these folders compares names or keeps a table by them.
 */
export interface WireApi {
  readonly name: WireFormat;
  /** The endpoint's path, appended to a provider's base URL. */
  readonly path: string;
  /** The response header the API's SDKs read an answer's request id from. */
  readonly requestIdHeader: string;
  /** How the API's own answer ids begin (`msg_`, `chatcmpl-`, `resp_`), for answers the gateway makes itself. */
  readonly answerIdPrefix: string;
  /** The longest tool-call id the API takes. */
  readonly maxToolIdLength: number;
  /**
   * Where its clients continue a conversation by naming an earlier answer's id
   * (`previous_response_id`): the gateway keeps the turns it answers from elsewhere and pins the
   * conversation under that id. Absent where clients send the whole history each turn.
   */
  readonly conversationIds?: ConversationIds;
  /**
   * With thinking on, the API refuses a history whose last assistant turn called tools without
   * the thinking block that came with the calls: thinking is turned off for such a request.
   */
  readonly needsThinkingWithToolCalls: boolean;

  // The client side.
  /** The client's body checked against the API's schema and the rules its server applies; throws a 400 naming the field. */
  checkRequest(body: unknown): JsonObject;
  /** Whether the request asks for what only this API passed through can give (Chat `n` > 1): no translation, no cached answer. */
  needsOwnApi(fields: Readonly<Record<string, unknown>>): boolean;
  readonly client: ClientFormat;
  /** The client asked for its stream's usage where the API sends it only when asked (Chat `stream_options.include_usage`). */
  clientAskedUsage(body: JsonObject): boolean;
  /** The API's error body. */
  encodeError(error: GatewayError, requestId: string): string;
  /** The status the API's clients know for a gateway status (Messages' 529 "overloaded" is 503 elsewhere). */
  errorStatus(status: number): number;
  /** The API's in-stream error event; `nextSequence` is the number it takes where events are numbered. */
  encodeStreamError(error: GatewayError, nextSequence: number): string;
  /** What keeps a quiet stream's connection alive. */
  readonly keepalive: Uint8Array;

  // The upstream side.
  readonly upstream: UpstreamAdapter;
  /** Replaces the body's thinking fields with the gateway's effort (and fits what thinking forbids). Mutates `body`. */
  setEffort(body: JsonObject, effort: Effort, model: ModelConfig): EffortResult;
  /** The API's version and beta headers, taken from the client's headers. */
  versionHeaders(client: Headers): Record<string, string>;

  /** The API's input-token count endpoint; absent where it has none (Chat). */
  readonly countTokens?: TokenCount;

  // Passing a body through unchanged.
  /** A raw body without the thinking of its first `turns` assistant turns, which another model signed. */
  stripThinking(body: JsonObject, turns: number): StrippedBody;
  /**
   * Makes a streamed body ask for its usage where the API reports it only when asked (Chat's
   * `stream_options.include_usage`): every request is accounted for. True when the client had not
   * asked, so the usage the upstream then sends is not passed on. Mutates `body`.
   */
  askStreamUsage(body: JsonObject): boolean;
  /** An answer's usage from the last `usage` object in its tail, and from its first event where the API reports input there. */
  readUsage(lastUsage: unknown, firstEvent?: string): Usage | undefined;
  /** An event that opens a stream without content yet: an error right after it is still a failed call, which may be retried. */
  opensStream(event: JsonObject): boolean;
  /** A reading of one stream's events as they pass (its end, a filter's ending, an error, usage, text). */
  inspectStream(ctx: InspectContext): StreamInspector;
  /** The API names the model in every event (Messages names it once, in `message_start`): each one's `model` is rewritten. */
  readonly modelInEveryEvent: boolean;
  /**
   * After a content filter stopped the stream, the upstream still reports what it spent in later
   * events (a Chat usage chunk, up to `[DONE]`): they are read, never sent.
   */
  readonly usageAfterFilter: boolean;
  /** The data of the event that ends a stream where that event is not JSON (Chat `[DONE]`); absent where the API ends with a JSON event. */
  readonly streamEnd?: string;
}

/** An API's input-token count endpoint and the bodies it takes. */
export interface TokenCount {
  /** The endpoint's path, appended to a provider's base URL. */
  readonly path: string;
  /** The count body for a request of this API, as its client sent it: only the fields the endpoint takes. */
  fromOwn(body: JsonObject, upstreamModelId: string): JsonObject;
  /** The count body for a request translated from another API; throws where it cannot be translated. */
  fromCanonical(request: CanonicalRequest, model: ModelConfig): JsonObject;
}

/** A raw request body with some of its history taken out, and whether thinking must be off for it. */
export interface StrippedBody {
  readonly value: JsonObject;
  readonly thinkingMustBeOff: boolean;
}

/** The ids under which an API's clients continue a conversation. */
export interface ConversationIds {
  /** The id the client is shown for an answer with this upstream id. */
  shownId(upstreamId: string): string;
  /** The id of an answer as it was sent (a JSON body, or a stream's first event). */
  readFrom(answer: string | Uint8Array): string | undefined;
}
