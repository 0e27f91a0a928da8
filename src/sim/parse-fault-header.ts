import { buildDirective, type DirectivePair } from "./build-directive.ts";
import type { SimDirective } from "./types.ts";

/**
 * Reads `x-sim-fault: status=503; delay=100; cut=2; malformed=1` (same keys as the prompt
 * directive, `;`-separated; values may be quoted). Null when absent or meant for another model.
 */
export function parseFaultHeader(value: string | null, model: string): SimDirective | null {
  if (!value) return null;
  const pairs: DirectivePair[] = [];
  for (const part of value.split(";")) {
    const eq = part.indexOf("=");
    if (eq < 0) continue;
    const key = part.slice(0, eq).trim();
    let raw = part.slice(eq + 1).trim();
    if (raw.length >= 2 && raw.startsWith('"') && raw.endsWith('"')) raw = raw.slice(1, -1);
    let parsed: unknown = raw;
    if (raw.startsWith("{")) {
      try {
        parsed = JSON.parse(raw);
      } catch {
        parsed = undefined;
      }
    }
    pairs.push([key, parsed]);
  }
  return buildDirective(pairs, model);
}
