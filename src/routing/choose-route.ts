import type { Effort } from "../canonical/effort.ts";
import { GatewayError } from "../canonical/gateway-error.ts";
import type { Tier } from "../canonical/tier.ts";
import type { Config, ModelConfig } from "../config/schema.ts";

export type RouteSource = "rule" | "default" | "continuation" | "sticky" | "smartplus";

export interface RouteDecision {
  readonly tier: Tier;
  readonly modelName: string;
  readonly model: ModelConfig;
  /** The effort wanted for the request; the upstream API mapping may lower it to what the model supports. */
  readonly effort: Effort;
  readonly source: RouteSource;
}

/**
 * Chooses the model for a tier: the first model of the tier's pool, whatever API it speaks (the
 * pool's order is the operator's preference; translation bridges formats), at the tier's default
 * effort. (Classification, stickiness and failover build on this.)
 */
export function chooseRoute(config: Config, tier: Tier): RouteDecision {
  const tierConfig = config.tiers[tier];
  const names = tierConfig.models;
  const modelName = names[0];
  if (modelName === undefined) {
    throw new GatewayError(503, "api_error", `no model of the \`${tier}\` tier can serve this endpoint`, { code: "no_model_available" });
  }
  return { tier, modelName, model: config.models[modelName]!, effort: tierConfig.defaultEffort, source: "default" };
}
