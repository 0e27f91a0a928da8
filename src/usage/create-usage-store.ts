import type { Database } from "../db/client.ts";
import { usageRecords, type NewUsageRecord } from "../db/schema/usage.ts";

/** Where usage rows go. Inserting a row whose request id is already stored is a no-op. */
export interface UsageStore {
  insert(rows: readonly NewUsageRecord[]): Promise<void>;
}

/** The Postgres/PGlite store: one multi-row insert per batch, `on conflict (request_id) do nothing`. */
export function createUsageStore(database: Database): UsageStore {
  return {
    async insert(rows) {
      if (rows.length === 0) return;
      await database.db.insert(usageRecords).values([...rows]).onConflictDoNothing({ target: usageRecords.requestId });
    },
  };
}
