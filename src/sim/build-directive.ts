import type { SimDirective } from "./types.ts";

/** A `key=value` pair as written; `value` is already JSON for `args={…}`. */
export type DirectivePair = readonly [key: string, value: unknown];

const toCount = (value: unknown): number | undefined => {
  const n = typeof value === "number" ? value : Number(value);
  return Number.isInteger(n) && n >= 0 ? n : undefined;
};

/**
 * Turns the pairs of one directive (or of the `x-sim-fault` header) into a SimDirective.
 * Returns null when the pairs carry `model=<id>` for another model, so a test can make only
 * one model of a failover pool misbehave. Unknown keys and bad values are ignored: the sim
 * never fails because of its own controls.
 */
export function buildDirective(pairs: readonly DirectivePair[], model: string): SimDirective | null {
  const directive: SimDirective = {};
  for (const [key, value] of pairs) {
    switch (key) {
      case "model":
        if (String(value) !== model) return null;
        break;
      case "status": {
        const status = toCount(value);
        if (status !== undefined && status >= 400 && status <= 599) directive.status = status;
        break;
      }
      case "message":
        directive.message = String(value);
        break;
      case "delay":
      case "delayMs":
        directive.delayMs = toCount(value);
        break;
      case "cut":
      case "cutAfterEvents":
        directive.cutAfterEvents = toCount(value);
        break;
      case "malformed":
      case "malformedAt":
        directive.malformedAt = toCount(value);
        break;
      case "times":
        directive.times = toCount(value);
        break;
      case "retry-after":
      case "retryAfter":
        directive.retryAfter = String(value);
        break;
      case "retry-after-ms":
      case "retryAfterMs":
        directive.retryAfterMs = toCount(value);
        break;
      case "gap":
      case "gapMs":
        directive.gapMs = toCount(value);
        break;
      case "words":
        directive.words = toCount(value);
        break;
      case "tool":
      case "tools":
        directive.tools = String(value)
          .split(",")
          .map((name) => name.trim())
          .filter((name) => name !== "");
        break;
      case "args":
        if (value !== null && typeof value === "object" && !Array.isArray(value)) {
          directive.args = value as Record<string, unknown>;
        }
        break;
      default:
        break;
    }
  }
  for (const key of Object.keys(directive) as (keyof SimDirective)[]) {
    if (directive[key] === undefined) delete directive[key];
  }
  return directive;
}
