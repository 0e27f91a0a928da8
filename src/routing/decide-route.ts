import type { Principal } from "../accounts/principal.ts";
import type { Effort } from "../canonical/effort.ts";
import { type GatewayError, fail } from "../canonical/gateway-error.ts";
import type { CanonicalRequest } from "../canonical/request.ts";
import type { Tier } from "../canonical/tier.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import type { ModelConfig } from "../config/schema.ts";
import { classifyTask, smallestContext, type Classification } from "./classify-task.ts";
import { classifyWithLlm } from "./classify-with-llm.ts";
import { conversationKey, responseConversationKey } from "./conversation-key.ts";
import type { Routing } from "./create-routing.ts";
import { extractTaskSignals, type TaskSignals } from "./extract-task-signals.ts";
import { hashKey } from "./hash-key.ts";
import { listCandidates, whyUnfit, type Candidate, type ModelRequirements } from "./list-candidates.ts";
import { continuesLoop, pickRoute, type RouteSource } from "./pick-route.ts";
import type { ConversationPin, EscalationState } from "./pin-store.ts";
import { NO_ESCALATION, readTurnOutcome, updateEscalation, type TurnOutcome } from "./track-escalation.ts";

export interface DecideRouteInput {
  readonly principal: Pick<Principal, "accountId">;
  readonly tier: Tier;
  readonly request: CanonicalRequest;
  /** From `readSessionId` (session headers, else the end-user id). */
  readonly sessionId?: string | undefined;
  /** The client's format (recorded; candidates are not limited by it unless `apis` says so). */
  readonly format: WireFormat;
  /** Only models callable with one of these upstream APIs (e.g. `[format]` while only the same-format path exists). */
  readonly apis?: readonly WireFormat[] | undefined;
  /** Explain: no llm call, nothing written to the decision cache. */
  readonly dryRun?: boolean;
  /** The conversation's pin as `readPinAhead` began to read it for this request; read here otherwise. */
  readonly pinRead?: PinRead | undefined;
}

/** A conversation's pin read ahead of the decision: the key it is read under, and the read. */
export interface PinRead {
  readonly key: string;
  readonly pin: ConversationPin | null | Promise<ConversationPin | null>;
}

/**
 * Begins reading the request's pin (its life renewed, as `decideRoute` does), so that the read
 * overlaps whatever the request waits for before routing: with the pins in Redis, the plan-limit
 * script and this read go out together, one round trip where there were two in a row.
 */
export function readPinAhead(routing: Routing, input: Pick<DecideRouteInput, "principal" | "tier" | "request" | "sessionId">): PinRead {
  const key = conversationKey(input.principal.accountId, input.tier, input.request, input.sessionId);
  return { key, pin: routing.pins.get(key, routing.config.routing.conversations.pinTtlMs) };
}

export interface RecordOutcomeOptions {
  /** Responses: the id of the answer, so a later `previous_response_id` finds this conversation. */
  readonly responseId?: string | undefined;
  /** The answer came only without the history's thinking (an upstream refused it as another model's): every assistant turn so far is foreign. */
  readonly historyForeign?: boolean | undefined;
}

export interface RoutingDecision {
  readonly tier: Tier;
  readonly taskClass: string;
  readonly rule: string | null;
  readonly modelName: string;
  readonly model: ModelConfig;
  /** Wanted effort (after escalation); the upstream mapping may lower it to what the model supports. */
  readonly effort: Effort;
  readonly baseEffort: Effort;
  readonly source: RouteSource;
  /** Failover order; the first is `modelName` unless its breaker is open. Never empty. */
  readonly candidates: readonly Candidate[];
  readonly conversationKey: string;
  /** The model the conversation was pinned to before this request; strip foreign thinking when another answers. */
  readonly pinnedModel: string | null;
  /** Assistant turns answered before the conversation switched to `pinnedModel` (their thinking is foreign to it). */
  readonly foreignTurns: number;
  readonly escalation: { readonly steps: number; readonly outcome: TurnOutcome };
  readonly signals: TaskSignals;
  readonly needs: ModelRequirements;
  /** The classification came from the decision cache (or was not needed: continuation). */
  readonly cached: boolean;
  /** Pins the conversation to the model that answered. Call once the answer is committed. */
  recordOutcome(modelThatAnswered: string, options?: RecordOutcomeOptions): Promise<void>;
}

/** The shape conditions read no text feature; a rule context needs the function all the same. */
const NO_FEATURES = Object.freeze({ code: false, stackTrace: false, diff: false });
const noFeatures = (): typeof NO_FEATURES => NO_FEATURES;

function decisionKey(routing: Routing, tier: Tier, signals: TaskSignals): string {
  const context = { signals, features: noFeatures, smallestContext: smallestContext(routing.config, tier) };
  // The shape conditions go into the key as one bit per rule, so the same text in a differently
  // shaped request (tools, images, size) is classified on its own.
  let shape = "";
  for (const rule of routing.rules) shape += rule.structural(context) ? "1" : "0";
  const text = signals.text.trim().toLowerCase();
  return hashKey(["dec", routing.configFingerprint, tier, shape, String(signals.textChars), text]);
}

async function classify(routing: Routing, tier: Tier, signals: TaskSignals, dryRun: boolean): Promise<{ value: Classification; cached: boolean }> {
  const key = decisionKey(routing, tier, signals);
  const hit = routing.decisionCache.peek(key) ?? (await routing.decisionCache.get(key));
  if (hit && routing.config.tiers[tier].models.includes(hit.model)) return { value: hit, cached: true };
  const { askClass } = routing;
  const value =
    routing.config.routing.classifier.kind === "llm" && askClass && !dryRun
      ? await classifyWithLlm(routing.config, routing.rules, tier, signals, askClass)
      : classifyTask(routing.config, routing.rules, tier, signals);
  if (!dryRun) routing.decisionCache.put(key, value);
  return { value, cached: false };
}

const assistantTurns = (request: CanonicalRequest): number => request.messages.filter((m) => m.role === "assistant").length;

function noModelFits(routing: Routing, tier: Tier, needs: ModelRequirements): GatewayError {
  const pool = routing.config.tiers[tier].models;
  const reasons = [...new Set(pool.map((name) => whyUnfit(routing.config.models[name]!, needs)).filter((r) => r !== null))];
  return fail("NoModelFits", `no model of the \`${tier}\` tier can serve this request (${reasons.join(", ")})`);
}

/**
 * Whether `b` would store nothing `a` does not already say. The tool results last weighed
 * (`escalation.seen`) are left out: they only keep a retried turn from moving the steps twice, and
 * a turn that moved them changes `steps`, so it is written. A turn that did not (neutral results,
 * or steps already at a bound) weighs the same again if retried, so an agent's ordinary tool turn
 * costs no write.
 */
function samePin(a: ConversationPin, b: ConversationPin): boolean {
  return (
    a.model === b.model &&
    a.taskClass === b.taskClass &&
    a.baseEffort === b.baseEffort &&
    a.escalation.steps === b.escalation.steps &&
    (a.foreignTurns ?? 0) === (b.foreignTurns ?? 0)
  );
}

/**
 * The routing decision for one request: the conversation's pin and escalation, the classifier
 * (behind the decision cache) unless the agent loop continues, the pick, and the failover
 * candidates. On a warm request nothing here does I/O except reading a Redis pin.
 */
export async function decideRoute(routing: Routing, input: DecideRouteInput): Promise<RoutingDecision> {
  const { config } = routing;
  const { tier, request } = input;
  const signals = extractTaskSignals(request, config.routing.scanChars);
  const needs: ModelRequirements = {
    vision: signals.hasImages,
    tools: signals.toolCount > 0,
    promptTokens: signals.promptTokens,
    maxOutputTokens: signals.maxOutputTokens,
    apis: input.apis,
  };
  const key = input.pinRead?.key ?? conversationKey(input.principal.accountId, tier, request, input.sessionId);
  const ttl = config.routing.conversations.pinTtlMs;
  // A dry run (explain) reads the pin without renewing it.
  const pin = await (input.pinRead ? input.pinRead.pin : routing.pins.get(key, input.dryRun === true ? undefined : ttl));
  const escalation: EscalationState = updateEscalation(pin?.escalation ?? NO_ESCALATION, signals, routing.escalation);
  const loop = continuesLoop({ config, tier, pin, needs, signals });
  const classified = loop ? null : await classify(routing, tier, signals, input.dryRun === true);
  const pick = pickRoute({ config, tier, signals, pin, classification: classified?.value ?? null, escalation, needs });
  const candidates = listCandidates({
    chosen: pick.modelName,
    pool: config.tiers[tier].models,
    models: config.models,
    needs,
    isAvailable: routing.breaker.isAvailable,
  });
  if (candidates.length === 0) throw noModelFits(routing, tier, needs);
  return {
    tier,
    ...pick,
    model: config.models[pick.modelName]!,
    candidates,
    conversationKey: key,
    pinnedModel: pin?.model ?? null,
    foreignTurns: pin?.foreignTurns ?? 0,
    escalation: { steps: escalation.steps, outcome: routing.escalation.enabled ? readTurnOutcome(signals, routing.escalation) : "neutral" },
    signals,
    needs,
    cached: classified?.cached ?? true,
    async recordOutcome(modelThatAnswered, options = {}) {
      // A switch makes every assistant turn so far another model's; on the same model they stay so.
      const foreignTurns = options.historyForeign ? assistantTurns(request) : !pin ? 0 : pin.model === modelThatAnswered ? (pin.foreignTurns ?? 0) : assistantTurns(request);
      const next: ConversationPin = {
        model: modelThatAnswered,
        taskClass: pick.taskClass,
        baseEffort: pick.baseEffort,
        escalation,
        ...(foreignTurns > 0 ? { foreignTurns } : {}),
      };
      // The read renewed the pin: an unchanged one needs no write.
      if (!pin || !samePin(pin, next)) await routing.pins.set(key, next, ttl);
      if (options.responseId) await routing.pins.set(responseConversationKey(input.principal.accountId, tier, options.responseId), next, ttl);
    },
  };
}
