import { sql } from "drizzle-orm";
import { bigint, check, index, integer, pgTable, text, timestamp } from "drizzle-orm/pg-core";
import { accounts } from "./accounts.ts";

const at = (name: string) => timestamp(name, { withTimezone: true, mode: "date" });

/** Where a Smart+ job is; `expired` is final and its blobs are gone. */
export const JOB_STATES = ["awaiting_upload", "queued", "running", "ready", "failed", "expired"] as const;
export type JobState = (typeof JOB_STATES)[number];

/**
 * Smart+ jobs: one repository upload turned into one patch. The row is the queue too: workers of
 * every instance claim `queued` rows (and `running` rows whose lease lapsed) with SKIP LOCKED.
 */
export const smartplusJobs = pgTable(
  "smartplus_jobs",
  {
    /** `job_` + base62; appears in the handoff URLs. */
    id: text("id").primaryKey(),
    accountId: text("account_id")
      .notNull()
      .references(() => accounts.id, { onDelete: "cascade" }),
    /** The key whose turn started the job: its model calls count toward that key's spend, as the key's own requests do. */
    keyId: text("key_id"),
    state: text("state").$type<JobState>().notNull().default("awaiting_upload"),
    /** The user's request the patch is for. */
    task: text("task").notNull(),
    /** Config name of the model that writes the patch, and the effort it is asked at. */
    model: text("model").notNull(),
    effort: text("effort").notNull(),
    /** What the worker is doing now, in words (shown in turns). */
    phase: text("phase"),
    fileCount: integer("file_count"),
    uploadBytes: bigint("upload_bytes", { mode: "number" }),
    /** Why the job failed, in words fit for the user. */
    error: text("error"),
    /** What the patch changes, in words (shown with the apply command). */
    summary: text("summary"),
    /** The worker holding the job and until when; a lapsed lease lets another worker claim it. */
    worker: text("worker"),
    leaseUntil: at("lease_until"),
    claims: integer("claims").notNull().default(0),
    createdAt: at("created_at").notNull().defaultNow(),
    queuedAt: at("queued_at"),
    startedAt: at("started_at"),
    finishedAt: at("finished_at"),
    expiresAt: at("expires_at").notNull(),
    updatedAt: at("updated_at").notNull().defaultNow(),
  },
  (table) => [
    check("smartplus_jobs_state_check", sql`${table.state} in ('awaiting_upload', 'queued', 'running', 'ready', 'failed', 'expired')`),
    index("smartplus_jobs_queue_idx").on(table.state, table.queuedAt),
    index("smartplus_jobs_expires_idx").on(table.expiresAt),
  ],
);

/** Job tokens (`rlj_…`): only the SHA-256 is kept; each is valid for its one job until `expires_at`. */
export const smartplusJobTokens = pgTable(
  "smartplus_job_tokens",
  {
    tokenHash: text("token_hash").primaryKey(),
    jobId: text("job_id")
      .notNull()
      .references(() => smartplusJobs.id, { onDelete: "cascade" }),
    createdAt: at("created_at").notNull().defaultNow(),
    expiresAt: at("expires_at").notNull(),
  },
  (table) => [index("smartplus_job_tokens_job_idx").on(table.jobId)],
);

/** Which job a conversation (a conversation key, see routing/conversation-key.ts) belongs to. */
export const smartplusConversations = pgTable(
  "smartplus_conversations",
  {
    key: text("key").primaryKey(),
    jobId: text("job_id")
      .notNull()
      .references(() => smartplusJobs.id, { onDelete: "cascade" }),
    createdAt: at("created_at").notNull().defaultNow(),
  },
  (table) => [index("smartplus_conversations_job_idx").on(table.jobId)],
);

export type SmartplusJobRow = typeof smartplusJobs.$inferSelect;
