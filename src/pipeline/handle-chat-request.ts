import type { Principal } from "../accounts/principal.ts";
import type { Converted } from "../canonical/converted.ts";
import { droppedKinds } from "../canonical/dropped-content.ts";
import type { CanonicalMessage, CanonicalRequest } from "../canonical/request.ts";
import type { Tier } from "../canonical/tier.ts";
import type { TraceSpan } from "../canonical/trace-span.ts";
import type { Usage } from "../canonical/usage.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { buildResponseCacheKey, readCacheControl } from "../cache/build-response-cache-key.ts";
import type { ResponseCache } from "../cache/create-response-cache.ts";
import type { WireApi } from "../wire/wire-api.ts";
import { wireApi } from "../wire/wire-apis.ts";
import type { Lease } from "../limits/limiter.ts";
import { resolveTier } from "../routing/resolve-tier.ts";
import { sniffUsage } from "../upstream/passthrough/sniff-usage.ts";
import { billStreamUsage } from "../usage/bill-stream-usage.ts";
import { chargeLimits } from "../usage/charge-limits.ts";
import { requestCost } from "../usage/request-cost.ts";
import { estimateRequestTokens } from "../usage/estimate-request-tokens.ts";
import { acquireLease, NO_LEASE } from "./acquire-lease.ts";
import { answerFromCache } from "./answer-from-cache.ts";
import { authenticateRequest } from "./authenticate-request.ts";
import type { HistoryAccess, ModelAnswer, ModelCall, UpstreamLimits } from "./call-model.ts";
import type { HistoryTurn } from "../cache/create-response-history.ts";
import { callWithFailover } from "./call-with-failover.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { newRequestId } from "./new-request-id.ts";
import { readJsonBodyWithBytes, type ReadJsonBody } from "./read-json-body.ts";
import { renderError, toGatewayError } from "./render-error.ts";
import { readRequestPin, routeRequest, type Route } from "./route-request.ts";
import type { PinRead } from "../routing/decide-route.ts";
import { routerHeaders } from "./router-headers.ts";
import { trackRequest, type RequestTracker } from "./track-request.ts";
import type { JsonObject } from "../canonical/json-object.ts";

/** One request while it is served: what every step reads, and what it must hand on. */
interface Served {
  readonly format: WireFormat;
  /** What the gateway knows of the called API. */
  readonly api: WireApi;
  readonly request: Request;
  /** The request's trace span (the no-op one when tracing is off), parent of routing and upstream attempts. */
  readonly span: TraceSpan;
  readonly deps: GatewayDeps;
  readonly requestId: string;
  readonly track: RequestTracker;
  readonly lease: Lease;
  readonly principal: Principal;
  readonly body: JsonObject;
  /** The body as it was read: its text (the response cache's key is hashed from it) and what sends it on as it came (same-format), when it can be. */
  readonly read: ReadJsonBody;
  readonly tier: Tier;
  readonly stream: boolean;
  /** The body in the canonical model, decoded once when first asked for. */
  readonly decode: () => Converted<CanonicalRequest>;
  /** The conversation's pin, its read begun before the plan slot was awaited (absent for a Smart+ turn). */
  readonly pinRead: PinRead | undefined;
}

/**
 * The client's connection, as far as the pipeline steers it: the server's idle timeout (Bun closes a
 * connection that moved no byte for that long). While an upstream is called the gateway's own
 * deadlines rule; once the answer goes out, a timeout above the keep-alive interval frees the
 * connection of a client that stopped reading without ever cutting a live stream.
 */
export interface ClientConnection {
  idleTimeout(seconds: number): void;
}

/** An error before the plan slot is held carries no headers of the gateway's own. */
const noHeaders = (): Record<string, string> => ({});

/** Bun's largest idle timeout. */
const MAX_IDLE_SECONDS = 255;

/** The idle timeout while the answer is sent: two keep-alive intervals, and never below the server's usual 30 s. */
const answerIdleSeconds = (keepaliveMs: number): number => Math.min(MAX_IDLE_SECONDS, Math.max(30, Math.ceil((2 * keepaliveMs) / 1000)));

/** The response-cache entry a request may read and write, or none. */
interface CacheSlot {
  readonly cache: ResponseCache;
  readonly key: string;
  readonly store: boolean;
  /** The stored answer, its lookup begun before the plan slot was awaited; absent when the client asked for none. */
  readonly found: ReturnType<ResponseCache["get"]> | undefined;
}

/**
 * One chat request, start to end: authenticate, read and check the body and the tier, hold a
 * plan-limit slot, answer from the response cache when it can, otherwise route and call the
 * candidates until one answers, in the called format, with the `x-router-*` headers naming the model that answered.
 * The slot is held until the last byte has gone (or the client has), and the request is reported
 * to the observers at that moment.
 */
export async function handleChatRequest(format: WireFormat, request: Request, deps: GatewayDeps, span: TraceSpan, connection?: ClientConnection): Promise<Response> {
  const requestId = newRequestId();
  // The headers an error answer carries, built only if one is rendered (most requests never need them).
  let errorHeaders = noHeaders;
  let stream = false;
  let lease = NO_LEASE;
  const track = trackRequest(deps.observe, requestId, format, () => stream);
  try {
    const principal = await authenticateRequest(request.headers, deps.authenticator);
    track.fields.accountId = principal.accountId;
    track.fields.keyId = principal.keyId;
    track.fields.plan = principal.plan;
    const api = wireApi(format);
    const read = await readJsonBodyWithBytes(request, deps.config.bodyLimitBytes, deps.parseMemo?.scope(principal.accountId));
    const body = api.checkRequest(read.value);
    connection?.idleTimeout(0);
    stream = body.stream === true;
    deps.logBody?.(requestId, body);
    const tier = resolveTier(typeof body.model === "string" ? body.model : undefined, principal);
    track.fields.tier = tier;
    let canonical: Converted<CanonicalRequest> | undefined;
    const decode = (): Converted<CanonicalRequest> => (canonical ??= api.client.decodeRequest(body));
    const smartPlus = tier === "smart-plus" && deps.smartPlus !== undefined;
    // The pin is read while the request waits for its plan slot: with Redis, one round trip where
    // there were two in a row (a turn answered from the response cache has read it for nothing).
    const pinRead = smartPlus ? undefined : readRequestPin(deps, request.headers, principal, tier, decode);
    // So is the stored answer, for the same reason (the response cache's second level is in Redis).
    const slot = smartPlus ? undefined : cacheSlot({ deps, request, api, body, principal, format, read });
    // Only a request that will be served is counted: a refused body or tier costs no limit.
    lease = await acquireLease(deps, principal);
    const leaseHeaders = lease.headers;
    errorHeaders = () => leaseHeaders;
    const served: Served = { format, api, request, span, deps, requestId, track, lease, principal, body, read, tier, stream, decode, pinRead };
    if (smartPlus) return await smartPlusTurn(served, leaseHeaders);
    const hit = slot?.found !== undefined ? await serveFromCache(served, slot.found, leaseHeaders) : null;
    if (hit) return hit;
    return await answerFromModels(served, slot, (next) => (errorHeaders = next));
  } catch (error) {
    // An error body is a whole answer: the slot is free before it goes out.
    await lease.release();
    const response = renderError(error, format, requestId, errorHeaders());
    const failure = toGatewayError(error);
    track.finish(response.status, { clientAborted: failure.status === 499, errorType: failure.type });
    return response;
  } finally {
    connection?.idleTimeout(answerIdleSeconds(deps.config.streamKeepaliveMs));
  }
}

/** The request's input tokens counted by the gateway; 0 if its body cannot be read as a request (it was sent as it came). */
function countInput(decode: () => Converted<CanonicalRequest>): number {
  try {
    return estimateRequestTokens(decode().value);
  } catch {
    return 0;
  }
}

/** The upstream limits of the config in use. */
function upstreamLimits(deps: GatewayDeps): UpstreamLimits {
  const { config } = deps;
  let limits = limitsOfConfig.get(config);
  if (!limits) {
    limits = { keepaliveMs: config.streamKeepaliveMs, idleMs: config.streamIdleTimeoutMs, maxEventBytes: config.maxUpstreamEventBytes, maxBodyBytes: config.maxUpstreamBodyBytes };
    limitsOfConfig.set(config, limits);
  }
  return limits;
}

/** Made once per config (a reload brings a new one), not once a request. */
const limitsOfConfig = new WeakMap<GatewayDeps["config"], UpstreamLimits>();

async function smartPlusTurn(s: Served, headers: Record<string, string>): Promise<Response> {
  s.track.fields.source = "smartplus";
  const { format, request, body, principal, requestId, lease, track } = s;
  const response = await s.deps.smartPlus!.turn({
    format,
    request,
    body,
    principal,
    requestId,
    headers,
    // The slot is free before the answer's last byte, as on every path; a client that left frees it at the end.
    beforeLastBytes: () => lease.release(),
    onEnd: () => {
      void lease.release();
      track.finish(200);
    },
  });
  track.markFirstByte();
  return response;
}

/** Where the request's answer is looked up and stored, with the lookup begun (when the client allows each). */
function cacheSlot(s: Pick<Served, "deps" | "request" | "api" | "body" | "principal" | "format" | "read">): CacheSlot | undefined {
  const cache = s.deps.responseCache;
  if (!cache) return undefined;
  const control = readCacheControl(s.request.headers);
  if (!control.lookup && !control.store) return undefined;
  // A hit is replayed from the canonical answer, which holds one choice.
  if (s.api.needsOwnApi(s.body)) return undefined;
  const key = buildResponseCacheKey(s.principal.accountId, s.format, s.body, s.read);
  const found = control.lookup ? cache.get(key) : undefined;
  // A request refused its plan slot never awaits the lookup; a failed one must not go unhandled.
  if (found instanceof Promise) found.catch(() => {});
  return { cache, key, store: control.store, found };
}

/** The stored answer for this account and body (`found`, as `cacheSlot` looked it up), replayed in the called format; null on a miss. */
async function serveFromCache(s: Served, found: Exclude<CacheSlot["found"], undefined>, headers: Record<string, string>): Promise<Response | null> {
  const hit = found instanceof Promise ? await found : found;
  s.deps.metrics?.cacheLookup("response", hit !== null);
  if (!hit) return null;
  const { fields } = s.track;
  fields.cacheHit = true;
  fields.model = hit.headers["x-router-model"];
  fields.effort = hit.headers["x-router-effort"];
  fields.source = hit.headers["x-router-source"];
  const includeUsage = s.api.clientAskedUsage(s.body);
  const own = { ...headers, "x-router-request-id": s.requestId, [s.api.requestIdHeader]: s.requestId };
  const response = answerFromCache(s.format, hit, s.stream, s.tier, includeUsage, own);
  s.track.markFirstByte();
  await s.lease.release();
  s.track.finish(200, { usage: hit.response.usage });
  return response;
}

/** Routes the request and calls the candidates; `setHeaders` keeps the caller's error headers current. */
async function answerFromModels(s: Served, slot: CacheSlot | undefined, setHeaders: (headers: () => Record<string, string>) => void): Promise<Response> {
  const { format, api, requestId, tier, track, lease, deps, span, decode } = s;
  const { fields } = track;
  const routing = span.child("routing", { "routelane.tier": tier });
  let route: Route;
  try {
    route = await routeRequest(deps, format, s.request.headers, s.principal, tier, decode, s.pinRead);
  } finally {
    routing.end();
  }
  fields.source = route.source;
  if (route.taskClass) fields.taskClass = route.taskClass;
  // An error before any model was called (every breaker open) names none: `x-router-model` is the model that answered.
  setHeaders(() => ({ ...lease.headers, ...routerHeaders(format, requestId, tier, undefined, undefined, route.source) }));
  const store = slot?.store ? slot : undefined;
  let answeredHeaders: Record<string, string> = {};
  /** The usage of a stream that ended normally, billed and counted before its last bytes. */
  let billed: Usage | undefined;
  /** The answer came only without the history's thinking: the pin says so (see callWithFailover). */
  let thinkingLeftOut = false;
  const call: ModelCall = {
    format,
    tier,
    stream: s.stream,
    client: s.request,
    timeoutMs: deps.config.upstreamTimeoutMs,
    limits: upstreamLimits(deps),
    // Streams only (a JSON answer frees the slot below, once its body is in hand).
    beforeLastBytes: !s.stream
      ? undefined
      : (ended) => {
          // A normal end's tokens are final now: counted here, they settle with the slot in one call.
          if (ended) billed = chargeEndedStream(s, billStreamUsage(ended, () => countInput(decode)));
          return lease.release();
        },
    body: s.body,
    sent: s.read.sent,
    canonical: decode,
    collect: store !== undefined,
    pinnedModel: route.pinnedModel,
    foreignTurns: route.foreignTurns,
    // Set or not, every member is there: one shape for every format's call.
    onResponseId: api.conversationIds ? (name: string, id: string) => route.pin(name, id, thinkingLeftOut) : undefined,
    history: api.conversationIds ? historyAccess(s) : undefined,
    onStreamEnd: (outcome) => {
      void lease.release();
      const whole = outcome.response ?? outcome.raw;
      if (store && whole) store.cache.put(store.key, whole, answeredHeaders);
      // Every streamed token is billed, whoever ended the stream and however.
      const usage = billed ?? billStreamUsage(outcome, () => countInput(decode));
      track.finish(200, { usage, streamError: outcome.error, clientAborted: outcome.clientAborted, limitsCharged: billed !== undefined });
    },
  };
  const answered = await callWithFailover(call, route.candidates, {
    providers: deps.providers,
    clientHeaders: s.request.headers,
    breaker: deps.routing.breaker,
    retries: deps.config.retries,
    attemptSpan: (candidate, attempt) => span.child("upstream attempt", { "routelane.model": candidate.name, "routelane.attempt": attempt }),
    onAttempt: (report) => {
      fields.attempts = (fields.attempts ?? 0) + 1;
      fields.model = report.candidate.name;
      // Should no model answer, the error names the one tried last.
      if (report.error && !report.retrying) setHeaders(() => ({ ...lease.headers, ...routerHeaders(format, requestId, tier, report.candidate.name, report.candidate.effort, route.source) }));
      deps.metrics?.upstreamAttempt(report.candidate.name, report.error ? "error" : "ok");
      if (report.error?.retryable && !report.retrying) deps.metrics?.failover(report.candidate.name);
    },
  });
  const { answer, candidate, attempts } = answered;
  thinkingLeftOut = answered.thinkingLeftOut;
  fields.attempts = attempts;
  fields.effort = answer.effort;
  for (const warning of answer.warnings) fields.warnings.push(warning);
  answeredHeaders = routerHeaders(format, requestId, tier, candidate.name, answer.effort, route.source);
  // A later `previous_response_id` names this answer: pin under its id too (a stream's is pinned
  // at its end, by `onResponseId`).
  const responseId = answer.body instanceof ReadableStream ? undefined : api.conversationIds?.readFrom(answer.body);
  route.pin(candidate.name, responseId, thinkingLeftOut);
  const headers: Record<string, string> = { ...lease.headers, ...answeredHeaders, "content-type": answer.contentType };
  if (s.stream) headers["cache-control"] = "no-cache";
  // What a translated answer held that the caller's format cannot (docs/translation.md).
  const dropped = answer.warnings.length > 0 ? droppedKinds(answer.warnings) : undefined;
  if (dropped && dropped.length > 0) headers["x-router-warning"] = `dropped, no ${format} counterpart: ${dropped.join(", ")}`;
  setHeaders(() => headers);
  track.markFirstByte();
  if (!s.stream) {
    // The whole body goes out at once: the request is reported and its slot freed before it does
    // (in this order, a shared limiter counts the tokens and frees the slot in one call).
    finishWhole(s, answer, store, answeredHeaders);
    await lease.release();
  }
  return new Response(answer.body, { status: 200, headers });
}

/**
 * Counts a normally ended stream's usage toward its account's limits, as the usage observer would
 * once the record is reported (its record says it need not): before the last bytes, with the
 * slot, so a shared limiter settles both in one call. The usage is what the record will carry.
 */
function chargeEndedStream(s: Served, usage: Usage): Usage {
  const charged = { accountId: s.principal.accountId, keyId: s.principal.keyId, model: s.track.fields.model, usage, cacheHit: false, endpoint: s.format };
  chargeLimits(s.deps.limiter, charged, requestCost(charged, s.deps.config.models));
  return usage;
}

/**
 * Where a Responses request's earlier turns are found and its own are kept, when its answer comes
 * from a stateless upstream. With `store: false` this turn is not kept, as a Responses upstream
 * would keep nothing then either; the turn it continues is still read.
 */
function historyAccess(s: Served): HistoryAccess | undefined {
  const history = s.deps.responseHistory;
  if (!history) return undefined;
  const { accountId } = s.principal;
  const previous = typeof s.body.previous_response_id === "string" ? s.body.previous_response_id : undefined;
  let loaded: Promise<readonly CanonicalMessage[] | null> | undefined;
  return {
    load: () => (loaded ??= previous === undefined ? Promise.resolve(null) : history.get(accountId, previous)),
    ...(s.body.store === false ? {} : { save: (responseId: string, turn: HistoryTurn) => history.put(accountId, responseId, turn) }),
  };
}

/** After a JSON answer has been handed over: store it, report it. */
function finishWhole(s: Served, answer: ModelAnswer, store: CacheSlot | undefined, answeredHeaders: Record<string, string>): void {
  if (store) {
    // Translated answers are decoded already; a passed-through body is kept as it is.
    const whole = answer.response ?? (answer.body instanceof Uint8Array ? { kind: "json" as const, api: s.format, bytes: [answer.body] } : undefined);
    if (whole) store.cache.put(store.key, whole, answeredHeaders);
  }
  s.track.finish(200, { usage: usageOfAnswer(s.api, answer) });
}

/** Usage of a complete answer: the decoded answer's when translated, else read from the bytes. */
function usageOfAnswer(api: WireApi, answer: ModelAnswer): Usage | undefined {
  if (answer.response) return answer.response.usage;
  return answer.body instanceof Uint8Array ? sniffUsage(api, [answer.body]) : undefined;
}
