import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Routing decisions by hash(tier, normalised task text), shared by every instance; the
 * in-process LRU sits in front. Rows past `expires_at` are ignored and cleaned up.
 */
export const routingDecisions = pgTable(
  "routing_decisions",
  {
    key: text("key").primaryKey(),
    taskClass: text("task_class").notNull(),
    model: text("model").notNull(),
    effort: text("effort").notNull(),
    /** The rule that matched, or null for the tier default. */
    rule: text("rule"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [index("routing_decisions_expires_idx").on(table.expiresAt)],
);

export type RoutingDecisionRow = typeof routingDecisions.$inferSelect;
