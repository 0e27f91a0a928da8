import type { Effort } from "../canonical/effort.ts";
import type { Tier } from "../canonical/tier.ts";
import type { Config } from "../config/schema.ts";
import { resolveClass, DEFAULT_TASK_CLASS, type Classification } from "./classify-task.ts";
import type { TaskSignals } from "./extract-task-signals.ts";
import { whyUnfit, type ModelRequirements } from "./list-candidates.ts";
import type { ConversationPin, EscalationState } from "./pin-store.ts";
import { escalateEffort } from "./track-escalation.ts";

/** Why the route was taken: a routing rule, the tier's default, a conversation's pin kept or its stickiness. */
export type RouteSource = "rule" | "default" | "continuation" | "sticky";

export interface PickRouteInput {
  readonly config: Config;
  readonly tier: Tier;
  readonly signals: TaskSignals;
  readonly pin: ConversationPin | null;
  /** The classifier's answer; may be null when the request continues a pinned agent loop. */
  readonly classification: Classification | null;
  /** The conversation's escalation after this request's tool results were counted. */
  readonly escalation: EscalationState;
  readonly needs: ModelRequirements;
}

export interface RoutePick {
  readonly modelName: string;
  readonly taskClass: string;
  readonly rule: string | null;
  /** The class's effort; `effort` adds the escalation steps. */
  readonly baseEffort: Effort;
  readonly effort: Effort;
  readonly source: RouteSource;
}

/** The pinned model when it is still in the tier's pool and can serve this request. */
export function usablePin(input: Pick<PickRouteInput, "config" | "tier" | "pin" | "needs">): ConversationPin | null {
  const { pin } = input;
  if (!pin || !input.config.tiers[input.tier].models.includes(pin.model)) return null;
  const model = input.config.models[pin.model];
  return model && whyUnfit(model, input.needs) === null ? pin : null;
}

/** A tool result answering a pinned, still usable model: the agent loop goes on, never re-classified. */
export function continuesLoop(input: Pick<PickRouteInput, "config" | "tier" | "pin" | "needs" | "signals">): boolean {
  return input.signals.lastIsToolResult && usablePin(input) !== null;
}

/**
 * The routing decision proper: `continuation` (tool loop on the pinned model and class), `sticky`
 * (a new turn stays on the pinned model; its effort follows the new turn's class), else the
 * classifier's `rule` or the tier's `default`. Escalation steps raise the effort in every case.
 */
export function pickRoute(input: PickRouteInput): RoutePick {
  const ceiling = input.config.routing.maxEffort[input.tier];
  const steps = input.escalation.steps;
  const pin = usablePin(input);
  if (pin && input.signals.lastIsToolResult) {
    return {
      modelName: pin.model,
      taskClass: pin.taskClass,
      rule: null,
      baseEffort: pin.baseEffort,
      effort: escalateEffort(pin.baseEffort, steps, ceiling),
      source: "continuation",
    };
  }
  const classification = input.classification ?? resolveClass(input.config, input.tier, DEFAULT_TASK_CLASS, null);
  const effort = escalateEffort(classification.effort, steps, ceiling);
  const common = { taskClass: classification.taskClass, rule: classification.rule, baseEffort: classification.effort, effort };
  if (pin) return { ...common, modelName: pin.model, source: "sticky" };
  return { ...common, modelName: classification.model, source: classification.rule === null ? "default" : "rule" };
}
