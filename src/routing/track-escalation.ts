import { EFFORTS, type Effort } from "../canonical/effort.ts";
import type { RoutingConfig } from "../config/schema.ts";
import type { TaskSignals } from "./extract-task-signals.ts";
import type { EscalationState } from "./pin-store.ts";

export interface CompiledEscalation {
  readonly enabled: boolean;
  readonly struggle: readonly RegExp[];
  readonly success: readonly RegExp[];
  readonly toolErrors: boolean;
  readonly repeatedCalls: boolean;
  readonly maxSteps: number;
}

export type TurnOutcome = "struggle" | "success" | "neutral";

export const NO_ESCALATION: EscalationState = { steps: 0, seen: "" };

export function compileEscalation(escalation: RoutingConfig["escalation"]): CompiledEscalation {
  return {
    enabled: escalation.enabled,
    struggle: escalation.strugglePatterns.map((p) => new RegExp(p, "i")),
    success: escalation.successPatterns.map((p) => new RegExp(p, "i")),
    toolErrors: escalation.toolErrors,
    repeatedCalls: escalation.repeatedCalls,
    maxSteps: escalation.maxSteps,
  };
}

/** What the newest tool results say: any sign of struggle wins over signs of progress. */
export function readTurnOutcome(signals: TaskSignals, rules: CompiledEscalation): TurnOutcome {
  if (signals.toolResults.length === 0) return "neutral";
  if (rules.repeatedCalls && signals.repeatedToolCall) return "struggle";
  let success = false;
  for (const result of signals.toolResults) {
    if (rules.toolErrors && result.isError) return "struggle";
    if (rules.struggle.some((re) => re.test(result.text))) return "struggle";
    if (!success && rules.success.some((re) => re.test(result.text))) success = true;
  }
  return success ? "success" : "neutral";
}

/**
 * One step up per struggling turn (up to `maxSteps`), one down per successful one. Tool results
 * already counted (a retried request) change nothing.
 */
export function updateEscalation(state: EscalationState, signals: TaskSignals, rules: CompiledEscalation): EscalationState {
  if (!rules.enabled || signals.toolResults.length === 0) return state;
  const seen = signals.toolResults.map((r) => r.callId).join(",");
  if (seen === state.seen) return state;
  const outcome = readTurnOutcome(signals, rules);
  const delta = outcome === "struggle" ? 1 : outcome === "success" ? -1 : 0;
  return { steps: Math.max(0, Math.min(rules.maxSteps, state.steps + delta)), seen };
}

/** The base effort raised by `steps`, never above the tier's ceiling (nor below the base). */
export function escalateEffort(base: Effort, steps: number, ceiling: Effort | undefined): Effort {
  const top = ceiling === undefined ? EFFORTS.length - 1 : EFFORTS.indexOf(ceiling);
  const at = EFFORTS.indexOf(base);
  return EFFORTS[Math.max(at, Math.min(at + steps, top))]!;
}
