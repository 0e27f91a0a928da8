import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";

/**
 * The default config with every model speaking all three APIs, so that every request takes the
 * same-format fast path (the built-in default crosses formats on purpose).
 */
export const SAME_FORMAT_CONFIG: FileConfig = {
  ...DEFAULT_CONFIG,
  models: Object.fromEntries(
    Object.entries(DEFAULT_CONFIG.models).map(([name, model]) => [name, { ...model, apis: ["messages", "chat", "responses"] as const }]),
  ) as FileConfig["models"],
};
