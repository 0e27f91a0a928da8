import { and, eq, lt, sql, type Placeholder } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { smartplusConversations, smartplusJobs, smartplusJobTokens, type SmartplusJobRow } from "../db/schema/smartplus.ts";
import { generateJobId, generateJobToken, hashJobToken } from "./generate-job-token.ts";

export type Job = SmartplusJobRow;

export interface NewJob {
  readonly accountId: string;
  /** The key whose turn starts the job; its model calls count toward that key's spend. */
  readonly keyId?: string;
  readonly conversationKey: string;
  readonly task: string;
  readonly model: string;
  readonly effort: string;
  readonly ttlMs: number;
}

/** What a presented job token is: unknown, expired, or valid for one job. */
export type TokenCheck = { readonly kind: "unknown" } | { readonly kind: "expired"; readonly jobId: string } | { readonly kind: "valid"; readonly jobId: string };

/** The jobs table as the turn, the handoff routes and the workers use it. Times are the database's. */
export interface JobStore {
  create(job: NewJob): Promise<Job>;
  /** Points another conversation key (a Responses id) at a job. */
  link(conversationKey: string, jobId: string): Promise<void>;
  forConversation(conversationKey: string, accountId: string): Promise<Job | null>;
  get(jobId: string): Promise<Job | null>;
  issueToken(jobId: string, ttlMs: number): Promise<string>;
  checkToken(token: string): Promise<TokenCheck>;
  /** awaiting_upload → queued; false when the job was not awaiting an upload. */
  markUploaded(jobId: string, fileCount: number, bytes: number): Promise<boolean>;
  /** The oldest queued job (or running one whose lease lapsed), now running under `worker`. */
  claim(worker: string, leaseMs: number, maxClaims: number): Promise<Job | null>;
  /** Extends the lease and records the phase; false when the job is no longer this worker's. */
  renew(jobId: string, worker: string, leaseMs: number, phase?: string): Promise<boolean>;
  finishReady(jobId: string, worker: string, summary: string): Promise<boolean>;
  /** Fails a job that is not final yet; `worker` fences a running job to its holder. */
  fail(jobId: string, message: string, worker?: string): Promise<boolean>;
  /** Moves every job past its expiry to `expired`; returns their ids (their blobs are deleted next). */
  expireDue(): Promise<string[]>;
  /** Fails running jobs whose lease lapsed after `maxClaims` claims (a job that kills its workers). */
  failAbandoned(maxClaims: number): Promise<string[]>;
}

const after = (ms: number | Placeholder) => sql`now() + (${ms} * interval '1 millisecond')`;
const FINAL = ["ready", "failed", "expired"] as const;

export function createJobStore(database: Database): JobStore {
  const db = database.db;
  const jobs = smartplusJobs;
  /**
   * One statement: the sub-select locks one claimable row and skips rows other workers hold. Built
   * once, as every idle worker runs it each poll. On Postgres, a process claiming from an empty
   * queue every 100 ms spent 2.4-4.1 ms of CPU per claim and pause with the statement built anew,
   * 0.9-1.7 prepared, and 0.3-0.5 with no claim at all.
   */
  const claimQuery = db
    .update(jobs)
    .set({
      state: "running",
      worker: sql`${sql.placeholder("worker")}`,
      leaseUntil: after(sql.placeholder("leaseMs")),
      claims: sql`${jobs.claims} + 1`,
      startedAt: sql`coalesce(${jobs.startedAt}, now())`,
      updatedAt: sql`now()`,
    })
    .where(
      sql`${jobs.id} = (select id from smartplus_jobs
        where expires_at > now() and (state = 'queued' or (state = 'running' and lease_until < now() and claims < ${sql.placeholder("maxClaims")}))
        order by queued_at limit 1 for update skip locked)`,
    )
    .returning()
    .prepare("smartplus_claim");
  /**
   * Prepared too: a waiting turn reads its job five times a second. Built each call, a read cost
   * 136-316 µs of the process's CPU on Postgres (121-196 of them the main thread's), against 27-55
   * prepared (16 reads under way at once, four rounds in turn).
   */
  const jobById = db.select().from(jobs).where(eq(jobs.id, sql.placeholder("jobId"))).limit(1).prepare("smartplus_job_by_id");
  return {
    async create(job) {
      const id = generateJobId();
      const [row] = await db
        .insert(jobs)
        .values({ id, accountId: job.accountId, keyId: job.keyId ?? null, task: job.task, model: job.model, effort: job.effort, expiresAt: after(job.ttlMs) })
        .returning();
      await this.link(job.conversationKey, id);
      return row!;
    },
    async link(conversationKey, jobId) {
      await db
        .insert(smartplusConversations)
        .values({ key: conversationKey, jobId })
        .onConflictDoUpdate({ target: smartplusConversations.key, set: { jobId, createdAt: sql`now()` } });
    },
    async forConversation(conversationKey, accountId) {
      const rows = await db
        .select({ job: jobs })
        .from(smartplusConversations)
        .innerJoin(jobs, eq(jobs.id, smartplusConversations.jobId))
        .where(and(eq(smartplusConversations.key, conversationKey), eq(jobs.accountId, accountId)))
        .limit(1);
      return rows[0]?.job ?? null;
    },
    async get(jobId) {
      const rows = await jobById.execute({ jobId });
      return rows[0] ?? null;
    },
    async issueToken(jobId, ttlMs) {
      const { token, hash } = generateJobToken();
      await db.insert(smartplusJobTokens).values({ tokenHash: hash, jobId, expiresAt: after(ttlMs) });
      return token;
    },
    async checkToken(token) {
      const rows = await db
        .select({ jobId: smartplusJobTokens.jobId, live: sql<boolean>`${smartplusJobTokens.expiresAt} > now()` })
        .from(smartplusJobTokens)
        .where(eq(smartplusJobTokens.tokenHash, hashJobToken(token)))
        .limit(1);
      const row = rows[0];
      if (!row) return { kind: "unknown" };
      return row.live ? { kind: "valid", jobId: row.jobId } : { kind: "expired", jobId: row.jobId };
    },
    async markUploaded(jobId, fileCount, bytes) {
      const rows = await db
        .update(jobs)
        .set({ state: "queued", fileCount, uploadBytes: bytes, phase: "queued", queuedAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(jobs.id, jobId), eq(jobs.state, "awaiting_upload"), sql`${jobs.expiresAt} > now()`))
        .returning({ id: jobs.id });
      return rows.length === 1;
    },
    async claim(worker, leaseMs, maxClaims) {
      const rows = await claimQuery.execute({ worker, leaseMs, maxClaims });
      return rows[0] ?? null;
    },
    async renew(jobId, worker, leaseMs, phase) {
      const rows = await db
        .update(jobs)
        .set({ leaseUntil: after(leaseMs), updatedAt: sql`now()`, ...(phase !== undefined ? { phase } : {}) })
        .where(and(eq(jobs.id, jobId), eq(jobs.worker, worker), eq(jobs.state, "running")))
        .returning({ id: jobs.id });
      return rows.length === 1;
    },
    async finishReady(jobId, worker, summary) {
      const rows = await db
        .update(jobs)
        .set({ state: "ready", summary, phase: "ready", leaseUntil: null, finishedAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(jobs.id, jobId), eq(jobs.worker, worker), eq(jobs.state, "running")))
        .returning({ id: jobs.id });
      return rows.length === 1;
    },
    async fail(jobId, message, worker) {
      const holder = worker === undefined ? sql`true` : and(eq(jobs.worker, worker), eq(jobs.state, "running"));
      const rows = await db
        .update(jobs)
        .set({ state: "failed", error: message, phase: "failed", leaseUntil: null, finishedAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(jobs.id, jobId), sql`${jobs.state} not in ('ready', 'failed', 'expired')`, holder))
        .returning({ id: jobs.id });
      return rows.length === 1;
    },
    async expireDue() {
      const rows = await db
        .update(jobs)
        .set({ state: "expired", phase: "expired", leaseUntil: null, updatedAt: sql`now()` })
        .where(and(lt(jobs.expiresAt, sql`now()`), sql`${jobs.state} <> 'expired'`))
        .returning({ id: jobs.id });
      return rows.map((row) => row.id);
    },
    async failAbandoned(maxClaims) {
      const rows = await db
        .update(jobs)
        .set({ state: "failed", phase: "failed", error: `the job stopped its worker ${maxClaims} times and was given up`, leaseUntil: null, finishedAt: sql`now()`, updatedAt: sql`now()` })
        .where(and(eq(jobs.state, "running"), lt(jobs.leaseUntil, sql`now()`), sql`${jobs.claims} >= ${maxClaims}`))
        .returning({ id: jobs.id });
      return rows.map((row) => row.id);
    },
  };
}

/** Whether a job will not change any more. */
export const isFinal = (job: Job): boolean => (FINAL as readonly string[]).includes(job.state);
