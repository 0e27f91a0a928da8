import { and, eq, gt, lte, sql } from "drizzle-orm";
import { isEffort } from "./is-effort.ts";
import type { Database } from "../db/client.ts";
import { routingDecisions } from "../db/schema/decision-cache.ts";
import type { DecisionStore } from "./create-decision-cache.ts";

/** The decision cache's shared layer: the `routing_decisions` table (Postgres or PGlite). */
export function createPostgresDecisionStore(database: Database): DecisionStore {
  const { db } = database;
  return {
    async read(key, now) {
      const rows = await db
        .select()
        .from(routingDecisions)
        .where(and(eq(routingDecisions.key, key), gt(routingDecisions.expiresAt, now)))
        .limit(1);
      const row = rows[0];
      if (!row || !isEffort(row.effort)) return null;
      return { taskClass: row.taskClass, rule: row.rule, model: row.model, effort: row.effort };
    },
    async write(key, decision, expiresAt) {
      const values = { taskClass: decision.taskClass, rule: decision.rule, model: decision.model, effort: decision.effort, expiresAt };
      await db
        .insert(routingDecisions)
        .values({ key, ...values })
        .onConflictDoUpdate({ target: routingDecisions.key, set: { ...values, createdAt: sql`now()` } });
    },
    async deleteExpired(now) {
      const deleted = await db.delete(routingDecisions).where(lte(routingDecisions.expiresAt, now)).returning({ key: routingDecisions.key });
      return deleted.length;
    },
  };
}
