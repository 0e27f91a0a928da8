import type { RequestRecord } from "../canonical/request-record.ts";
import type { ModelConfig } from "../config/schema.ts";
import { computeCost } from "./compute-cost.ts";

/** A request's cost in USD: the pipeline's own figure when it set one, else its usage at its model's prices (0 without them). */
export function requestCost(record: Pick<RequestRecord, "costUsd" | "usage" | "model">, models: Readonly<Record<string, ModelConfig>>): number {
  if (record.costUsd !== undefined) return record.costUsd;
  const prices = record.model ? models[record.model]?.prices : undefined;
  return record.usage && prices ? computeCost(record.usage, prices) : 0;
}
