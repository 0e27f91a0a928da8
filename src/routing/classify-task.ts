import { EFFORTS, type Effort } from "../canonical/effort.ts";
import type { Tier } from "../canonical/tier.ts";
import type { Config } from "../config/schema.ts";
import type { CompiledRule } from "./compile-routing-rules.ts";
import type { TaskSignals } from "./extract-task-signals.ts";
import { readTextFeatures, type TextFeatures } from "./read-text-features.ts";

/** The class used when no rule matches: the tier's defaults. */
export const DEFAULT_TASK_CLASS = "general";

export interface Classification {
  readonly taskClass: string;
  /** The rule that matched (or `llm` for the llm classifier); null → tier defaults. */
  readonly rule: string | null;
  readonly model: string;
  readonly effort: Effort;
}

/** The lower of two efforts. */
function capEffort(effort: Effort, ceiling: Effort | undefined): Effort {
  if (ceiling === undefined) return effort;
  return EFFORTS.indexOf(effort) > EFFORTS.indexOf(ceiling) ? ceiling : effort;
}

export function smallestContext(config: Config, tier: Tier): number {
  let smallest = Number.POSITIVE_INFINITY;
  // Indexed, not for…of: the config is frozen, and JSC's optimized for…of over a frozen array
  // left its code at the end of every walk (an out-of-bounds read): 11,461 such exits in 9 s of
  // the bench's JSON row, 84 against 47 ns a call in a loop.
  const models = config.tiers[tier].models;
  for (let i = 0; i < models.length; i++) smallest = Math.min(smallest, config.models[models[i]!]?.contextWindow ?? smallest);
  return smallest;
}

/** Model and effort of a class on a tier; `choice` is a rule's per-tier override. */
export function resolveClass(
  config: Config,
  tier: Tier,
  taskClass: string,
  rule: string | null,
  choice?: { readonly model?: string; readonly effort?: Effort },
): Classification {
  const tierConfig = config.tiers[tier];
  const classConfig = config.routing.classes[taskClass];
  const pool = tierConfig.models;
  const preferred = classConfig?.prefer?.find((name) => pool.includes(name));
  const model = choice?.model !== undefined && pool.includes(choice.model) ? choice.model : (preferred ?? pool[0]!);
  const effort = choice?.effort ?? classConfig?.effort?.[tier] ?? tierConfig.defaultEffort;
  return { taskClass, rule, model, effort: capEffort(effort, config.routing.maxEffort[tier]) };
}

/** The rules classifier: the first matching rule decides; none → the tier's defaults. */
export function classifyTask(config: Config, rules: readonly CompiledRule[], tier: Tier, signals: TaskSignals): Classification {
  let features: TextFeatures | undefined;
  const context = {
    signals,
    features: () => (features ??= readTextFeatures(signals.text)),
    smallestContext: smallestContext(config, tier),
  };
  for (const compiled of rules) {
    if (compiled.matches(context)) {
      return resolveClass(config, tier, compiled.rule.class, compiled.rule.name, compiled.rule.tiers?.[tier]);
    }
  }
  return resolveClass(config, tier, DEFAULT_TASK_CLASS, null);
}
