import { EFFORTS, type Effort } from "./effort.ts";

/**
 * The nearest effort a model supports: the wanted one, else the next lower, else the next higher.
 * Stepping down first keeps cost and latency within what the tier promised.
 */
export function clampEffort(wanted: Effort, supported: readonly Effort[]): Effort {
  if (supported.includes(wanted)) return wanted;
  const at = EFFORTS.indexOf(wanted);
  for (let i = at - 1; i >= 0; i--) if (supported.includes(EFFORTS[i]!)) return EFFORTS[i]!;
  for (let i = at + 1; i < EFFORTS.length; i++) if (supported.includes(EFFORTS[i]!)) return EFFORTS[i]!;
  return wanted;
}
