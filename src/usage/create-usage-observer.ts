import type { ModelConfig } from "../config/schema.ts";
import type { Limiter } from "../limits/limiter.ts";
import type { RequestObserver } from "../canonical/request-record.ts";
import { computeCost } from "./compute-cost.ts";
import type { UsageWriter } from "./create-usage-writer.ts";
import { toUsageRow } from "./to-usage-row.ts";

export interface UsageObserverDeps {
  readonly writer: UsageWriter;
  /** Config models by name: the record's `model` picks the prices. */
  readonly models: Readonly<Record<string, ModelConfig>>;
  /** Receives the billed tokens for the monthly cap; absent → not counted. */
  readonly limiter?: (Pick<Limiter, "addTokens"> & Partial<Pick<Limiter, "addSpend">>) | undefined;
}

/**
 * Turns every finished request into a usage row (cost from the model's prices unless the pipeline
 * already set it) and feeds the month's billed tokens to the limiter. Cache hits and token counts
 * are free: they add nothing to the monthly counter.
 */
export function createUsageObserver(deps: UsageObserverDeps): RequestObserver {
  return (record) => {
    try {
      const prices = record.model ? deps.models[record.model]?.prices : undefined;
      const cost = record.costUsd ?? (record.usage && prices ? computeCost(record.usage, prices) : 0);
      const row = toUsageRow(record, cost);
      if (!row) return;
      deps.writer.record(row);
      if (record.usage && record.accountId && !record.cacheHit && record.endpoint !== "count_tokens") {
        deps.limiter?.addTokens(record.accountId, record.usage.inputTokens + record.usage.outputTokens);
      }
      // The key's spend cap counts what the row costs (nothing for a cache hit).
      if (record.accountId && record.keyId && row.costUsd) deps.limiter?.addSpend?.(record.accountId, record.keyId, row.costUsd);
    } catch (err) {
      console.error(JSON.stringify({ level: "error", msg: "usage observer failed", error: err instanceof Error ? err.message : String(err) }));
    }
  };
}
