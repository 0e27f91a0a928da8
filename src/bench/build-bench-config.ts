import type { Effort } from "../canonical/effort.ts";
import type { Tier } from "../canonical/tier.ts";
import { DEFAULT_CONFIG, DEFAULT_ROUTING } from "../config/default-config.ts";
import type { FileConfig, ModelConfig, RoutingConfig } from "../config/schema.ts";
import type { WireFormat } from "../canonical/wire-format.ts";

/**
 * The bench's own gateway config. Three simulated models that differ only in the APIs they speak
 * (same thinking mode, efforts and prices, so the upstream does the same class of work for each):
 * one speaks all three APIs and serves the same-format rows, one speaks only Chat and one only
 * Messages, so every client format has a tier that makes the gateway translate.
 */
export const BENCH_EFFORT: Effort = "medium";

export const BENCH_MODELS = {
  all: "sim-all",
  chat: "sim-chat-only",
  messages: "sim-messages-only",
} as const;

/** Tier for the same-format rows: its model speaks every client format. */
export const SAME_FORMAT_TIER: Tier = "normal";

/** Tier for each client format's cross row, and the upstream API it translates to. */
export const CROSS_TIERS: Readonly<Record<WireFormat, { readonly tier: Tier; readonly api: WireFormat }>> = {
  messages: { tier: "fast", api: "chat" },
  chat: { tier: "smart", api: "messages" },
  responses: { tier: "smart", api: "messages" },
};

const TIER_MODELS: Readonly<Record<Tier, string>> = {
  normal: BENCH_MODELS.all,
  fast: BENCH_MODELS.chat,
  smart: BENCH_MODELS.messages,
  "smart-plus": BENCH_MODELS.all,
};

function benchModel(upstreamId: string, apis: ModelConfig["apis"]): ModelConfig {
  const base = DEFAULT_CONFIG.models["sim-normal"];
  if (!base) throw new Error("DEFAULT_CONFIG has no `sim-normal` model");
  return { ...structuredClone(base), upstreamId, apis };
}

/**
 * Every class asks every tier for the same effort and nothing escalates: the bench's prompt
 * mentions an error, and a class-dependent effort would make the yardstick (which sends the
 * effort fields itself) ask the upstream for different work than the gateway does.
 */
function benchRouting(): RoutingConfig {
  const routing = structuredClone(DEFAULT_ROUTING);
  const sameEffort = { fast: BENCH_EFFORT, normal: BENCH_EFFORT, smart: BENCH_EFFORT, "smart-plus": BENCH_EFFORT };
  for (const name of Object.keys(routing.classes)) {
    const spec = routing.classes[name]!;
    routing.classes[name] = { ...spec, effort: { ...sameEffort } };
  }
  return { ...routing, maxEffort: { fast: "max", normal: "max", smart: "max", "smart-plus": "max" }, escalation: { ...routing.escalation, enabled: false } };
}

/** The bench config, with the `sim` provider pointed at the external simulated upstream. */
export function buildBenchConfig(simUrl: string): FileConfig {
  const config: FileConfig = structuredClone(DEFAULT_CONFIG);
  const sim = config.providers.sim;
  if (!sim) throw new Error("DEFAULT_CONFIG has no `sim` provider");
  config.providers = { sim: { ...sim, baseUrl: simUrl } };
  config.models = {
    [BENCH_MODELS.all]: benchModel(BENCH_MODELS.all, ["messages", "chat", "responses"]),
    [BENCH_MODELS.chat]: benchModel(BENCH_MODELS.chat, ["chat"]),
    [BENCH_MODELS.messages]: benchModel(BENCH_MODELS.messages, ["messages"]),
  };
  for (const [tier, model] of Object.entries(TIER_MODELS) as [Tier, string][]) {
    config.tiers[tier] = { ...config.tiers[tier], models: [model], defaultEffort: BENCH_EFFORT };
  }
  config.routing = benchRouting();
  // On, as in production: the miss rows skip it per request (`cache-control: no-cache`, so they
  // still pay the key and the store), and the `cached` rows measure its hits.
  config.responseCache = { ...config.responseCache, enabled: true };
  return config;
}
