import { EFFORTS, type Effort } from "../canonical/effort.ts";

export function isEffort(value: unknown): value is Effort {
  return typeof value === "string" && (EFFORTS as readonly string[]).includes(value);
}
