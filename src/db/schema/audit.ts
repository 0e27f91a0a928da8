import { bigint, index, jsonb, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Every operator write (accounts, plans, limits, keys, suspension, config reloads): when, who, from
 * where, and the object before and after. Rows are only ever added. Keys appear by id and prefix,
 * never the key or its hash.
 */
export const adminAudit = pgTable(
  "admin_audit",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp("at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    /** `token`, or `console session ses_…`. */
    actor: text("actor").notNull(),
    /** The client address of the call. */
    address: text("address"),
    /** `account.create`, `account.update`, `account.suspend`, `key.issue`, `key.revoke`, … */
    action: text("action").notNull(),
    accountId: text("account_id"),
    keyId: text("key_id"),
    before: jsonb("before"),
    after: jsonb("after"),
  },
  (table) => [index("admin_audit_account_idx").on(table.accountId, table.id)],
);

export type AdminAuditRow = typeof adminAudit.$inferSelect;
