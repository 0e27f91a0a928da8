import type { ModelConfig } from "../config/schema.ts";
import type { RequestObserver } from "../canonical/request-record.ts";
import { chargeLimits, type LimitCounter } from "./charge-limits.ts";
import { requestCost } from "./request-cost.ts";
import type { UsageWriter } from "./create-usage-writer.ts";
import { toUsageRow } from "./to-usage-row.ts";

export interface UsageObserverDeps {
  readonly writer: UsageWriter;
  /** Config models by name: the record's `model` picks the prices. */
  readonly models: Readonly<Record<string, ModelConfig>>;
  /** Receives the billed tokens for the monthly cap; absent → not counted. */
  readonly limiter?: LimitCounter | undefined;
}

/**
 * Turns every finished request into a usage row (cost from the model's prices unless the pipeline
 * already set it) and feeds the month's billed tokens to the limiter. Cache hits and token counts
 * are free: they add nothing to the monthly counter.
 */
export function createUsageObserver(deps: UsageObserverDeps): RequestObserver {
  return (record) => {
    try {
      const row = toUsageRow(record, requestCost(record, deps.models));
      if (!row) return;
      deps.writer.record(row);
      // The key's spend cap counts what the row costs (nothing for a cache hit). A record whose
      // limits the pipeline already counted (a stream, with its slot) is not counted twice.
      if (deps.limiter && !record.limitsCharged) chargeLimits(deps.limiter, record, row.costUsd ?? 0);
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "usage observer failed", error: err instanceof Error ? err.message : String(err) }));
    }
  };
}
