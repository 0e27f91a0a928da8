import { index, pgTable, text, timestamp } from "drizzle-orm/pg-core";

/**
 * Signed-in console sessions, shared by every instance. The cookie holds a random secret; only
 * its SHA-256 is stored, so a copy of this table lets no one in.
 */
export const consoleSessions = pgTable(
  "console_sessions",
  {
    /** `ses_…`: names the session in the audit log. Not the secret. */
    id: text("id").primaryKey(),
    secretHash: text("secret_hash").notNull().unique(),
    /** Sent back by the page in `x-csrf-token` on every write. */
    csrfToken: text("csrf_token").notNull(),
    /**
     * HMAC of the admin token keyed by the session's secret: a session outlives no change of the
     * token, and without the secret (never stored) the value says nothing about the token.
     */
    tokenCheck: text("token_check").notNull(),
    address: text("address"),
    createdAt: timestamp("created_at", { withTimezone: true, mode: "date" }).notNull().defaultNow(),
    expiresAt: timestamp("expires_at", { withTimezone: true, mode: "date" }).notNull(),
  },
  (table) => [index("console_sessions_expires_idx").on(table.expiresAt)],
);
