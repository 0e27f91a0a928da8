import { DEFAULT_CONFIG, DEFAULT_ROUTING } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";

/**
 * The default config for tests of one part that need every request to reach the upstream: the
 * response cache off (an identical body would otherwise be answered from it), breakers that do
 * not open under a test's run of injected faults, and no same-model retries (an injected fault
 * fails its call at once and the next model is tried; test/http/retries.test.ts covers retries).
 */
export const UNCACHED_CONFIG: FileConfig = {
  ...DEFAULT_CONFIG,
  responseCache: { enabled: false },
  server: { retries: { attempts: 0 } },
  routing: { ...DEFAULT_ROUTING, breaker: { failureThreshold: 1_000_000, coolDownMs: 1_000 } },
};

/** Also without classification rules: every request runs at its tier's default effort, source `default`. */
export const DEFAULT_EFFORT_CONFIG: FileConfig = { ...UNCACHED_CONFIG, routing: { ...UNCACHED_CONFIG.routing!, rules: [] } };

/**
 * The default config with every model speaking all three APIs, so that every request takes the
 * same-format fast path (the built-in default crosses formats on purpose), without classification
 * rules (every request runs at its tier's default effort) and without the response cache.
 */
export const SAME_FORMAT_CONFIG: FileConfig = {
  ...DEFAULT_EFFORT_CONFIG,
  models: Object.fromEntries(
    Object.entries(DEFAULT_CONFIG.models).map(([name, model]) => [name, { ...model, apis: ["messages", "chat", "responses"] as const }]),
  ) as FileConfig["models"],
};
