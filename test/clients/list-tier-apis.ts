import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";

/** The upstream APIs the default config's models of a tier speak: where its requests may go. */
export function listTierApis(tier: string): string[] {
  const models: readonly string[] = Object.entries(DEFAULT_CONFIG.tiers).find(([name]) => name === tier)?.[1].models ?? [];
  const apis = Object.entries(DEFAULT_CONFIG.models).flatMap(([id, model]) => (models.includes(id) ? model.apis : []));
  return [...new Set<string>(apis)];
}
