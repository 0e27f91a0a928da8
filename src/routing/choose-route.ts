import type { Effort } from "../canonical/effort.ts";
import { GatewayError } from "../canonical/gateway-error.ts";
import type { Tier } from "../canonical/tier.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
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
 * Chooses the model for a tier: the first model of the tier's pool that can be called in the
 * client's own format, at the tier's default effort. (Classification, stickiness and failover
 * build on this.)
 */
export function chooseRoute(config: Config, tier: Tier, format: WireFormat): RouteDecision {
  const tierConfig = config.tiers[tier];
  for (const modelName of tierConfig.models) {
    const model = config.models[modelName]!;
    if (model.apis.includes(format)) {
      return { tier, modelName, model, effort: tierConfig.defaultEffort, source: "default" };
    }
  }
  throw new GatewayError(503, "api_error", `no model of the \`${tier}\` tier can serve this endpoint`, {
    code: "no_model_available",
  });
}
