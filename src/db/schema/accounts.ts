import { sql } from "drizzle-orm";
import { bigint, boolean, check, doublePrecision, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import type { Tier } from "../../canonical/tier.ts";
import type { Plan } from "../../canonical/plans.ts";

const createdAt = () => timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow();

export const accounts = pgTable(
  "accounts",
  {
    /** `acct_` + base62; readable in the CLI. */
    id: text("id").primaryKey(),
    plan: text("plan").$type<Plan>().notNull(),
    defaultTier: text("default_tier").$type<Tier>().notNull().default("normal"),
    suspended: boolean("suspended").notNull().default(false),
    email: text("email"),
    /** Enterprise overrides; null = no cap. Ignored (and cleared) on other plans. */
    requestsPerMinute: integer("requests_per_minute"),
    concurrentRequests: integer("concurrent_requests"),
    tokensPerMonth: bigint("tokens_per_month", { mode: "number" }),
    createdAt: createdAt(),
    updatedAt: timestamp("updated_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
  },
  (table) => [
    check("accounts_plan_check", sql`${table.plan} in ('Starter', 'Pro', 'Enterprise')`),
    check("accounts_default_tier_check", sql`${table.defaultTier} in ('fast', 'normal', 'smart', 'smart-plus')`),
  ],
);

export const apiKeys = pgTable(
  "api_keys",
  {
    /** `key_` + base62; the handle used to revoke. Not the key. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** SHA-256 of the whole presented key, lowercase hex. The key itself is never stored. */
    keyHash: text("key_hash").notNull().unique(),
    /** First characters of the key, for humans to tell keys apart. */
    prefix: text("prefix").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true, mode: "date" }),
    revokedAt: timestamp("revoked_at", { withTimezone: true, mode: "date" }),
    /** Per-key controls, all optional: a label, when the key stops working (401 after), the tiers it may call (null = the plan's), its own requests per minute, and its monthly spend cap in USD. */
    name: text("name"),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }),
    allowedTiers: text("allowed_tiers").array().$type<Tier[]>(),
    requestsPerMinute: integer("requests_per_minute"),
    monthlySpendUsd: doublePrecision("monthly_spend_usd"),
  },
  (table) => [index("api_keys_account_id_idx").on(table.accountId)],
);

export type AccountRow = typeof accounts.$inferSelect;
export type ApiKeyRow = typeof apiKeys.$inferSelect;
