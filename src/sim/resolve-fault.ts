import type { Fault } from "../config/schema.ts";
import type { SimDirective } from "./types.ts";

/**
 * Merges the three fault sources, most specific first: request directive > header > per-model
 * config. `status` and `message` travel together so a directive's status never picks up the
 * config's message.
 */
export function resolveFault(directive: SimDirective, header: SimDirective | null, config: Fault | undefined): SimDirective {
  const merged: SimDirective = { ...config, ...header, ...directive };
  const statusSource = directive.status !== undefined ? directive : header?.status !== undefined ? header : config;
  if (statusSource && statusSource.status !== undefined) {
    merged.status = statusSource.status;
    if (statusSource.message !== undefined) merged.message = statusSource.message;
    else delete merged.message;
  }
  return merged;
}
