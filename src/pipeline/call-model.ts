import type { HistoryTurn } from "../cache/create-response-history.ts";
import type { RawAnswer } from "../cache/raw-answer.ts";
import type { Converted } from "../canonical/converted.ts";
import { type GatewayError, fail } from "../canonical/gateway-error.ts";
import type { Effort } from "../canonical/effort.ts";
import type { CanonicalMessage, CanonicalRequest } from "../canonical/request.ts";
import type { CanonicalResponse } from "../canonical/response.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import type { ModelConfig } from "../config/schema.ts";
import type { EncodeContext } from "../wire/client-format.ts";
import type { StrippedBody, WireApi } from "../wire/wire-api.ts";
import { wireApi } from "../wire/wire-apis.ts";
import { buildForwardHeaders } from "../upstream/passthrough/build-forward-headers.ts";
import { forwardSameFormat } from "../upstream/passthrough/forward-same-format.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";
import { normalizeToolIds } from "../routing/normalize-tool-ids.ts";
import { isThinking, stripForeignThinking } from "../routing/strip-foreign-thinking.ts";
import { forwardTranslated } from "../upstream/translated/forward-translated.ts";
import type { BeforeLastBytes } from "../upstream/sse/create-before-last-bytes.ts";
import { encodeAsSent, type SentBody } from "./encode-as-sent.ts";
import type { StreamOutcome } from "../upstream/translated/stream-outcome.ts";
import type { JsonObject } from "../canonical/json-object.ts";

/** What bounds an upstream call once it answers (see the `server` section of the config). */
export interface UpstreamLimits {
  readonly keepaliveMs: number;
  readonly idleMs: number;
  readonly maxEventBytes: number;
  readonly maxBodyBytes: number;
}

/** One request as the pipeline holds it while trying models. */
export interface ModelCall {
  readonly format: WireFormat;
  readonly tier: string;
  readonly stream: boolean;
  readonly client: Request;
  readonly timeoutMs: number;
  /** Stream keep-alive and idle limits, the largest upstream event and non-stream answer read. */
  readonly limits: UpstreamLimits;
  /**
   * Streams: called once just before the last bytes go out (the concurrency slot is freed there);
   * a stream that ends normally passes its tokens, as `onStreamEnd` will report them.
   */
  readonly beforeLastBytes?: BeforeLastBytes;
  /** The client's body before any model was tried; each attempt works on a shallow copy. */
  readonly body: JsonObject;
  /** `body` as the client sent it (its text, members and bytes): a same-format call sends it on cut from them. */
  readonly sent?: SentBody | undefined;
  /** The client's body in canonical form, decoded once when a cross-format model is first tried. */
  canonical(): Converted<CanonicalRequest>;
  readonly onStreamEnd: (outcome: StreamOutcome) => void;
  /** Rebuild a streamed answer whole at its end (for the response cache). */
  readonly collect: boolean;
  /**
   * The model the conversation is pinned to. Another model must not see thinking that model
   * signed: it is stripped from the history before a different model is called.
   */
  readonly pinnedModel: string | null;
  /** Assistant turns answered before the conversation switched to `pinnedModel`: their thinking is stripped even for it. */
  readonly foreignTurns?: number;
  /** Responses streams: the id the client was sent, once the stream has ended. */
  readonly onResponseId?: (modelName: string, responseId: string) => void;
  /**
   * Responses clients whose answer may come from a stateless upstream: where the conversation named
   * by `previous_response_id` is found, and where this turn is kept.
   */
  readonly history?: HistoryAccess;
}

export interface HistoryAccess {
  /** The conversation `previous_response_id` names, when the gateway made that answer itself. */
  load(): Promise<readonly CanonicalMessage[] | null>;
  /** Keeps this turn; absent when the client asked for `store: false`. */
  readonly save?: (responseId: string, turn: HistoryTurn) => void;
}

export interface ModelAnswer {
  readonly body: ReadableStream<Uint8Array> | Uint8Array | string;
  readonly contentType: string;
  /** The effort actually sent (after the model's own limits). */
  readonly effort: Effort;
  /** The upstream API used; equal to the client format on the fast path. */
  readonly api: WireFormat;
  /** Non-stream translated answers: the decoded answer. */
  readonly response?: CanonicalResponse;
  readonly warnings: readonly string[];
}

/** The same-format path of a model switch: the raw body without the other model's thinking (in its first `turns` assistant turns). */
function stripRawThinking(api: WireApi, body: JsonObject, turns: number): StrippedBody {
  return turns === 0 ? { value: body, thinkingMustBeOff: false } : api.stripThinking(body, turns);
}

/**
 * The last assistant turn called tools without its thinking block (clients of other formats
 * cannot send one back): an upstream that needs that block with thinking on would refuse it.
 */
function lacksToolCallThinking(request: CanonicalRequest): boolean {
  for (let i = request.messages.length - 1; i >= 0; i--) {
    const message = request.messages[i]!;
    if (message.role !== "assistant") continue;
    const calls = message.content.some((p) => p.type === "tool_call");
    return calls && !message.content.some(isThinking);
  }
  return false;
}

/**
 * Calls one model for the request: byte pass-through when the model speaks the client's format,
 * otherwise through the canonical model to the model's preferred API. Throws a GatewayError whose
 * `retryable` says whether another model may be tried.
 */
export async function callModel(call: ModelCall, name: string, model: ModelConfig, wanted: Effort, provider: ResolvedProvider, clientHeaders: Headers): Promise<ModelAnswer> {
  const switching = call.pinnedModel !== null && call.pinnedModel !== name;
  if (model.apis.includes(call.format)) return passThrough(call, name, model, wanted, provider, clientHeaders, switching);
  return translate(call, name, model, wanted, provider, clientHeaders, switching);
}

/** The model speaks the client's API: the body goes as the client sent it, with the model and effort set. */
async function passThrough(call: ModelCall, name: string, model: ModelConfig, wanted: Effort, provider: ResolvedProvider, clientHeaders: Headers, switching: boolean): Promise<ModelAnswer> {
  const api = wireApi(call.format);
  const stripped = stripRawThinking(api, call.body, switching ? Infinity : (call.foreignTurns ?? 0));
  const body: JsonObject = { ...stripped.value, model: model.upstreamId };
  const set = api.setEffort(body, stripped.thinkingMustBeOff ? "off" : wanted, model);
  const hideUsageChunk = call.stream && api.askStreamUsage(body);
  const forwarded = await forwardSameFormat({
    url: provider.baseUrl + api.path,
    headers: buildForwardHeaders(api, clientHeaders, provider, call.stream),
    // The members the gateway left alone (most of a big conversation) go as the client sent them.
    body: encodeAsSent(body, call.sent),
    stream: call.stream,
    client: call.client,
    timeoutMs: call.timeoutMs,
    api,
    upstreamModelId: model.upstreamId,
    tier: call.tier,
    hideUsageChunk,
    keepChunks: call.collect,
    limits: call.limits,
    beforeLastBytes: call.beforeLastBytes,
    // Streams only: a JSON answer is reported by the caller once its body is in hand.
    onEnd: !call.stream ? undefined : (end) => {
      const responseId = call.onResponseId ? api.conversationIds?.readFrom(end.firstEvent) : undefined;
      if (responseId) call.onResponseId!(name, responseId);
      const { usage, startUsage } = end;
      // Kept as sent, decoded only if the cache is ever asked for it. A hidden usage chunk is
      // not among the chunks sent: the usage goes beside them.
      const raw: RawAnswer | undefined = end.chunks && end.failure === undefined && !end.clientAborted ? { kind: "stream", api: call.format, bytes: end.chunks, usage } : undefined;
      // Every member, in one order, as the translated path's outcome has them: one shape for both.
      call.onStreamEnd({
        usage,
        startUsage,
        sentTokens: end.sentTokens,
        stopReason: undefined,
        error: end.failure,
        clientAborted: end.clientAborted,
        response: undefined,
        raw,
      });
    },
  });
  // Every member, in one order, as the translated answer has them: one shape for both paths.
  return { body: forwarded.body, contentType: forwarded.contentType, effort: set.effort, api: call.format, response: undefined, warnings: set.warnings };
}

/** The model speaks another API: the client's request goes through the canonical model into the model's first API, and its answer back. */
async function translate(call: ModelCall, name: string, model: ModelConfig, wanted: Effort, provider: ResolvedProvider, clientHeaders: Headers, switching: boolean): Promise<ModelAnswer> {
  const api = wireApi(model.apis[0]!);
  const decoded = call.canonical();
  const { value: client, remember } = await withHistory(call, decoded.value, switching);
  const stripped = stripForeignThinking(client, name, call.pinnedModel, call.foreignTurns);
  const request = switching ? normalizeToolIds(stripped.value, api.name).value : stripped.value;
  const encoded = api.upstream.encodeRequest(request, { upstreamModelId: model.upstreamId, model });
  const body = encoded.value;
  const warnings = [...decoded.warnings, ...stripped.warnings, ...encoded.warnings];
  let effort = wanted;
  if (api.needsThinkingWithToolCalls && effort !== "off" && (stripped.thinkingMustBeOff || lacksToolCallThinking(request))) {
    effort = "off";
    warnings.push("thinking turned off: the last assistant turn called tools without a thinking block the upstream requires");
  }
  const set = api.setEffort(body, effort, model);
  warnings.push(...set.warnings);
  const encode: EncodeContext = { model: call.tier, created: Math.floor(Date.now() / 1000), includeUsage: decoded.value.includeUsage === true };
  const translated = await forwardTranslated({
    url: provider.baseUrl + api.path,
    headers: buildForwardHeaders(api, clientHeaders, provider, call.stream),
    body: JSON.stringify(body),
    stream: call.stream,
    client: call.client,
    timeoutMs: call.timeoutMs,
    adapter: api.upstream,
    clientApi: wireApi(call.format),
    encode,
    limits: call.limits,
    beforeLastBytes: call.beforeLastBytes,
    onStreamEnd: remember
      ? (outcome) => {
          if (outcome.response) {
            const responseId = remember(outcome.response);
            call.onResponseId?.(name, responseId);
          }
          call.onStreamEnd(outcome);
        }
      : call.onStreamEnd,
    collect: call.collect || remember !== undefined,
  });
  if (remember && translated.response) remember(translated.response);
  warnings.push(...translated.warnings);
  return { body: translated.body, contentType: translated.contentType, effort: set.effort, api: api.name, response: translated.response, warnings };
}

const MAX_ID_SHOWN = 128;

/** The Responses API's answer to a `previous_response_id` it does not know (unknown, expired, another account's, or not stored). */
function previousResponseNotFound(id: string): GatewayError {
  // The id is the client's own text: an error body does not echo more of it than an id can be.
  const shown = id.length > MAX_ID_SHOWN ? `${id.slice(0, MAX_ID_SHOWN)}…` : id;
  return fail("PreviousResponseNotFound", `Previous response with id '${shown}' not found.`, { param: "previous_response_id" });
}

/** The conversation's own model is failing and no other model holds the conversation: try again shortly. */
function conversationModelUnavailable(): GatewayError {
  return fail("ConversationModelUnavailable", "the model that holds this conversation is unavailable, and no other model can continue it; try again shortly", {
    headers: { "retry-after": "5" },
  });
}

/**
 * A Responses client on a stateless upstream: the conversation `previous_response_id` names is put
 * back in front of the new input (a Responses upstream would do that itself), and `remember` keeps
 * this turn (the new input and the answer) under the id of the answer the client is shown.
 */
async function withHistory(
  call: ModelCall,
  request: CanonicalRequest,
  switching: boolean,
): Promise<{ value: CanonicalRequest; remember?: (response: CanonicalResponse) => string }> {
  const history = call.history;
  const ids = wireApi(call.format).conversationIds;
  if (!ids || !history) return { value: request };
  const previous = request.previousResponseId;
  // A client that sends its whole history every turn (answers included) never needs it kept, and
  // keeping it would store the conversation again at every turn: only chains are kept, from a first
  // turn without answers in it, or from a turn that continues one.
  if (previous === undefined && request.messages.some((m) => m.role === "assistant")) return { value: request };
  const earlier = previous !== undefined ? await history.load() : null;
  // Answering without the conversation the client named would lose it without a word: a
  // Responses upstream refuses an id it does not know in the same way. When the conversation is
  // pinned to another model, that model failed before this one was tried, and the conversation may
  // be kept at its upstream: no model here can continue it until that one is back.
  if (previous !== undefined && !earlier) throw switching ? conversationModelUnavailable() : previousResponseNotFound(previous);
  let value = request;
  if (earlier) {
    const { previousResponseId: _continued, ...rest } = request;
    value = { ...rest, messages: [...earlier, ...request.messages] };
  }
  const save = history.save;
  // Nothing to keep: the stream need not be collected to rebuild the answer.
  if (!save) return { value };
  return {
    value,
    remember: (response) => {
      const responseId = ids.shownId(response.id);
      const turn = [...request.messages, { role: "assistant" as const, content: response.content }];
      save(responseId, { ...(earlier && previous !== undefined ? { previous } : {}), messages: turn });
      return responseId;
    },
  };
}
