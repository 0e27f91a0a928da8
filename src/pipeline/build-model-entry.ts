import type { Tier } from "../canonical/tier.ts";
import type { Config } from "../config/schema.ts";

/** When the tiers were first listed; the same for every tier so listings are stable. */
const LISTED_AT = Date.UTC(2026, 9, 6) / 1000;
const LISTED_AT_ISO = new Date(LISTED_AT * 1000).toISOString().replace(".000Z", "Z");

export interface ModelEntry {
  id: Tier;
  object: "model";
  type: "model";
  created: number;
  created_at: string;
  owned_by: string;
  display_name: string;
  description: string;
  context_window: number;
  context_length: number;
  max_input_tokens: number;
  max_output_tokens: number;
  max_completion_tokens: number;
  capabilities: {
    anthropic_messages: boolean;
    openai_chat: boolean;
    openai_responses: boolean;
    tools: boolean;
    vision: boolean;
    json_schema: boolean;
    /** false: the gateway sets the effort itself. */
    reasoning: false;
  };
  client_compat: { pi: { maxTokensField: "max_tokens"; supportsReasoningEffort: false } };
}

/**
 * A tier as the models endpoint lists it. One shape readable by clients of either format: it
 * carries both the Messages-style (`type`, `created_at`, `display_name`) and the OpenAI-style
 * (`object`, `created`, `owned_by`) fields.
 */
export function buildModelEntry(tier: Tier, config: Config): ModelEntry {
  const tierConfig = config.tiers[tier];
  const models = tierConfig.models.map((name) => config.models[name]!);
  return {
    id: tier,
    object: "model",
    type: "model",
    created: LISTED_AT,
    created_at: LISTED_AT_ISO,
    owned_by: tierConfig.ownedBy,
    display_name: tierConfig.displayName,
    description: tierConfig.description,
    context_window: tierConfig.contextWindow,
    context_length: tierConfig.contextWindow,
    max_input_tokens: tierConfig.contextWindow,
    max_output_tokens: tierConfig.maxOutputTokens,
    max_completion_tokens: tierConfig.maxOutputTokens,
    capabilities: {
      // Every endpoint reaches every tier: the gateway translates when a model speaks another API.
      anthropic_messages: true,
      openai_chat: true,
      openai_responses: true,
      tools: models.some((m) => m.tools),
      vision: models.some((m) => m.vision),
      json_schema: true,
      reasoning: false,
    },
    client_compat: { pi: { maxTokensField: "max_tokens", supportsReasoningEffort: false } },
  };
}
