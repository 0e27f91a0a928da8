import type { FileConfig, ModelConfig } from "./schema.ts";

const LISTED_CONTEXT = 1_048_576;
const LISTED_OUTPUT = 131_072;

const simModel = (upstreamId: string, overrides: Partial<ModelConfig>): ModelConfig => ({
  provider: "sim",
  upstreamId,
  apis: ["messages", "chat", "responses"],
  contextWindow: LISTED_CONTEXT,
  maxOutputTokens: LISTED_OUTPUT,
  vision: true,
  tools: true,
  efforts: ["off", "low", "medium", "high", "max"],
  thinking: "adaptive",
  prices: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  ...overrides,
});

/**
 * The built-in configuration: every tier routes to simulated models served by the in-process
 * simulated upstream, so a fresh checkout runs offline with no provider key.
 */
export const DEFAULT_CONFIG: FileConfig = {
  providers: { sim: { kind: "sim" } },
  models: {
    "sim-fast": simModel("sim-fast", {
      efforts: ["off", "low", "medium", "high"],
      thinking: "manual",
      prices: { input: 0.25, output: 1.25, cacheRead: 0.025, cacheWrite: 0.3 },
    }),
    "sim-normal": simModel("sim-normal", {}),
    "sim-normal-b": simModel("sim-normal-b", {}),
    "sim-smart": simModel("sim-smart", { prices: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 } }),
    "sim-smart-b": simModel("sim-smart-b", { prices: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 } }),
    "sim-max": simModel("sim-max", { prices: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } }),
  },
  tiers: {
    fast: {
      displayName: "Fast",
      description: "Quick answers for small, well-defined tasks: titles, summaries, short edits.",
      ownedBy: "routelane",
      models: ["sim-fast"],
      defaultEffort: "off",
      contextWindow: LISTED_CONTEXT,
      maxOutputTokens: LISTED_OUTPUT,
    },
    normal: {
      displayName: "Normal",
      description: "Everyday coding and chat at a balanced cost.",
      ownedBy: "routelane",
      models: ["sim-normal", "sim-normal-b"],
      defaultEffort: "medium",
      contextWindow: LISTED_CONTEXT,
      maxOutputTokens: LISTED_OUTPUT,
    },
    smart: {
      displayName: "Smart",
      description: "Hard problems: debugging, design and multi-step agent work.",
      ownedBy: "routelane",
      models: ["sim-smart", "sim-smart-b"],
      defaultEffort: "high",
      contextWindow: LISTED_CONTEXT,
      maxOutputTokens: LISTED_OUTPUT,
    },
    "smart-plus": {
      displayName: "Smart+",
      description: "The heaviest model with the whole repository in context; answers with a patch.",
      ownedBy: "routelane",
      models: ["sim-max"],
      defaultEffort: "max",
      contextWindow: LISTED_CONTEXT,
      maxOutputTokens: LISTED_OUTPUT,
    },
  },
};
