import type { Effort } from "../canonical/effort.ts";

/** What setting the effort on an upstream body did: the effort actually asked for, and what had to change. */
export interface EffortResult {
  readonly effort: Effort;
  readonly warnings: readonly string[];
}
