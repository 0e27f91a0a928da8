import type { Effort } from "../../src/canonical/effort.ts";
import type { WireFormat } from "../../src/canonical/wire-format.ts";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig, ModelConfig } from "../../src/config/schema.ts";
import { DEFAULT_EFFORT_CONFIG } from "../helpers/same-format-config.ts";

/** Each tier's model speaks one API: a recording is asked for on the tier of the API that made it. */
export const TIER_OF_API: Readonly<Record<WireFormat, string>> = { chat: "fast", messages: "normal", responses: "smart" };

/** A gateway whose tiers call the replaying upstream at `upstream`, one API per tier, uncached, without rules. */
export function replayConfig(upstream: string, effort: Effort = "off"): FileConfig {
  const model = (provider: string, api: WireFormat): ModelConfig => ({
    ...DEFAULT_CONFIG.models["sim-normal"]!,
    provider,
    upstreamId: `recorded-${api}`,
    apis: [api],
  });
  const tier = (name: string) => ({ ...DEFAULT_CONFIG.tiers.normal, models: [name], defaultEffort: effort });
  return {
    ...DEFAULT_EFFORT_CONFIG,
    providers: { anthropic: { kind: "anthropic", baseUrl: upstream }, openai: { kind: "openai", baseUrl: upstream } },
    models: { "rec-messages": model("anthropic", "messages"), "rec-chat": model("openai", "chat"), "rec-responses": model("openai", "responses") },
    tiers: { fast: tier("rec-chat"), normal: tier("rec-messages"), smart: tier("rec-responses"), "smart-plus": tier("rec-messages") },
  };
}
