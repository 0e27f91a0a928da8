import type { Effort } from "../canonical/effort.ts";

/** What setting the effort on an upstream body did: the effort actually asked for, and what had to change. */
export interface EffortResult {
  readonly effort: Effort;
  readonly warnings: readonly string[];
}

export type JsonObject = Record<string, unknown>;

export function isJsonObject(value: unknown): value is JsonObject {
  return value !== null && typeof value === "object" && !Array.isArray(value);
}
