import type { Database } from "../db/client.ts";
import type { MonthlySpendLoader } from "../limits/limiter.ts";
import { queryKeySpend } from "./query-key-spend.ts";

/** The limiter's loader of a key's recorded spend in the month starting at `monthStart` (USD). */
export function loadMonthlySpend(database: Database): MonthlySpendLoader {
  return async (accountId, keyId, monthStart) => (await queryKeySpend(database, accountId, monthStart, keyId)).get(keyId)?.costUsd ?? 0;
}
