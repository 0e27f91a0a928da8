import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { getEventListeners } from "node:events";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountStore } from "../../src/accounts/account-store.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { MEMORY_DATA_DIR, openDatabase, type Database } from "../../src/db/client.ts";
import type { Principal } from "../../src/accounts/principal.ts";
import { createBlobStore } from "../../src/smartplus/create-blob-store.ts";
import { createJobStore, type JobStore } from "../../src/smartplus/create-job-store.ts";
import { handleTurn } from "../../src/smartplus/handle-turn.ts";
import { startWorker } from "../../src/smartplus/start-worker.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

let testDb: TestDatabase;
/** A second handle on the same database: another instance, on Postgres; the same handle on PGlite. */
let second: Database;
let accountId: string;
let blobDir: string;

beforeAll(async () => {
  testDb = await openTestDatabase();
  second = testDb.databaseUrl ? await openDatabase({ databaseUrl: testDb.databaseUrl, dataDir: MEMORY_DATA_DIR }) : testDb.database;
  ({ account: { id: accountId } } = await createAccountStore(testDb.database).createAccount({ plan: "Enterprise" }));
  blobDir = mkdtempSync(join(tmpdir(), "routelane-blobs-"));
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  if (second !== testDb.database) await second.close();
  await testDb.close();
  rmSync(blobDir, { recursive: true, force: true });
}, DATABASE_HOOK_TIMEOUT_MS);

async function queuedJobs(store: JobStore, count: number): Promise<string[]> {
  const ids: string[] = [];
  for (let i = 0; i < count; i++) {
    const job = await store.create({ accountId, conversationKey: `conv-${crypto.randomUUID()}`, task: `task ${i}`, model: "sim-max", effort: "max", ttlMs: 3_600_000 });
    expect(await store.markUploaded(job.id, 1, 10)).toBe(true);
    ids.push(job.id);
  }
  return ids;
}

describe("the job queue", () => {
  test("claims from two handles at once never hand out the same job", async () => {
    const a = createJobStore(testDb.database);
    const b = createJobStore(second);
    const ids = await queuedJobs(a, 12);
    const claimed: string[] = [];
    const drain = async (store: JobStore, worker: string) => {
      for (let job = await store.claim(worker, 60_000, 3); job; job = await store.claim(worker, 60_000, 3)) claimed.push(job.id);
    };
    await Promise.all([drain(a, "w1"), drain(b, "w2"), drain(a, "w3"), drain(b, "w4")]);
    expect(new Set(claimed).size).toBe(claimed.length);
    for (const id of ids) expect(claimed).toContain(id);
  });

  test("two worker loops share the queue: every job is claimed exactly once", async () => {
    const store = createJobStore(testDb.database);
    const ids = await queuedJobs(store, 8);
    const settings = { ...loadConfig({}).smartPlus, pollIntervalMs: 10, leaseTimeoutMs: 60_000 };
    const blobs = createBlobStore(blobDir);
    // No model resolves: each claimed job fails at once, recording which worker held it.
    const loops = ["loop-1", "loop-2"].map((id, i) =>
      startWorker({ id, store: createJobStore(i === 0 ? testDb.database : second), blobs, settings, resolveModel: () => null }),
    );
    const list = sql.join(ids.map((id) => sql`${id}`), sql`, `);
    let rows: { id: string; state: string; claims: number; worker: string }[] = [];
    for (let round = 0; round < 400; round++) {
      rows = await testDb.database.rows(sql`select id, state, claims, worker from smartplus_jobs where id in (${list})`);
      if (rows.every((row) => row.state === "failed")) break;
      await Bun.sleep(25);
    }
    await Promise.all(loops.map((loop) => loop.stop()));
    expect(rows).toHaveLength(ids.length);
    for (const row of rows) expect({ id: row.id, state: row.state, claims: row.claims }).toEqual({ id: row.id, state: "failed", claims: 1 });
  });

  test("a job whose worker died is claimed again after its lease, and the old worker can no longer finish it", async () => {
    const store = createJobStore(testDb.database);
    const [id] = await queuedJobs(store, 1);
    const first = await store.claim("dead-worker", 60_000, 3);
    expect(first?.id).toBe(id!);
    expect(await store.claim("other", 60_000, 3)).toBeNull();
    await testDb.database.rows(sql`update smartplus_jobs set lease_until = now() - interval '1 second' where id = ${id!}`);
    const again = await store.claim("other", 60_000, 3);
    expect(again).toMatchObject({ id, worker: "other", claims: 2, state: "running" });
    expect(await store.renew(id!, "dead-worker", 60_000)).toBe(false);
    expect(await store.finishReady(id!, "dead-worker", "late")).toBe(false);
    expect(await store.finishReady(id!, "other", "done")).toBe(true);
  });

  // The claim is one statement prepared once: each call's worker, lease and cap must still be its own.
  test("each claim runs with its own worker, lease and claim cap", async () => {
    const store = createJobStore(testDb.database);
    while (await store.claim("drain", 60_000, 3)) {}
    const [id] = await queuedJobs(store, 1);
    const leaseSeconds = async (): Promise<number> => {
      const [row] = await testDb.database.rows<{ seconds: number }>(sql`select extract(epoch from lease_until - now())::float8 as seconds from smartplus_jobs where id = ${id!}`);
      return Number(row!.seconds);
    };
    expect(await store.claim("first", 60_000, 3)).toMatchObject({ id, worker: "first", claims: 1 });
    const first = await leaseSeconds();
    expect(first).toBeGreaterThan(50);
    expect(first).toBeLessThan(70);
    await testDb.database.rows(sql`update smartplus_jobs set lease_until = now() - interval '1 second' where id = ${id!}`);
    // Claimed once: a cap of one leaves it, a cap of two takes it, under the new worker's lease.
    expect(await store.claim("second", 600_000, 1)).toBeNull();
    expect(await store.claim("second", 600_000, 2)).toMatchObject({ id, worker: "second", claims: 2 });
    const second = await leaseSeconds();
    expect(second).toBeGreaterThan(590);
    expect(second).toBeLessThan(610);
  });

  test("a worker deletes the blobs of expired jobs", async () => {
    const store = createJobStore(testDb.database);
    const blobs = createBlobStore(blobDir);
    const [id] = await queuedJobs(store, 1);
    await blobs.write(id!, "patch.diff", "diff\n");
    await testDb.database.rows(sql`update smartplus_jobs set state = 'ready', expires_at = now() - interval '1 second' where id = ${id!}`);
    const settings = { ...loadConfig({}).smartPlus, pollIntervalMs: 10 };
    const worker = startWorker({ id: "sweeper", store, blobs, settings, resolveModel: () => null });
    for (let round = 0; round < 200 && (await blobs.file(id!, "patch.diff")) !== null; round++) await Bun.sleep(10);
    await worker.stop();
    expect(await blobs.file(id!, "patch.diff")).toBeNull();
    expect((await store.get(id!))?.state).toBe("expired");
  });

  test("a job that outlived its claims is failed, and expired jobs are swept", async () => {
    const store = createJobStore(testDb.database);
    const [stuck, old] = await queuedJobs(store, 2);
    await testDb.database.rows(sql`update smartplus_jobs set state = 'running', claims = 3, lease_until = now() - interval '1 second' where id = ${stuck!}`);
    await testDb.database.rows(sql`update smartplus_jobs set expires_at = now() - interval '1 second' where id = ${old!}`);
    expect(await store.failAbandoned(3)).toContain(stuck!);
    expect(await store.expireDue()).toContain(old!);
    expect((await store.get(stuck!))?.state).toBe("failed");
    expect((await store.get(old!))?.state).toBe("expired");
  });
  // A turn reads its job five times a second while it waits (up to turnWaitMs, 20 s by default).
  test("a turn waiting on its job leaves no abort listener on the request for each read", async () => {
    const store = createJobStore(testDb.database);
    const [id] = await queuedJobs(store, 1);
    let reads = 0;
    const watched: JobStore = {
      ...store,
      forConversation: () => store.get(id!),
      get: async (jobId) => {
        if (++reads === 20) await store.fail(jobId, "stopped by the test");
        return store.get(jobId);
      },
    };
    const request = new Request("http://localhost/v1/messages", { method: "POST", headers: { host: "localhost" } });
    const response = await handleTurn(
      { store: watched, config: () => loadConfig({}), pollMs: 1 },
      {
        format: "messages",
        request,
        body: { model: "smart-plus", max_tokens: 64, messages: [{ role: "user", content: "fix the bug" }] },
        principal: { accountId, keyId: "key_turn_test" } as Principal,
        requestId: "req_turn_listeners",
        headers: {},
      },
    );
    expect(await response.text()).toContain("stopped by the test");
    expect(reads).toBe(20);
    expect(getEventListeners(request.signal, "abort")).toHaveLength(0);
  });
});
