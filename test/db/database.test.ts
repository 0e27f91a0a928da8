import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import postgres from "postgres";
import { openDatabase, type Database } from "../../src/db/client.ts";
import { migrateDatabase } from "../../src/db/migrate.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";

/** Migrations in drizzle/: each must be recorded exactly once. */
async function migrationCount(): Promise<number> {
  const journal = (await Bun.file(join(import.meta.dir, "..", "..", "drizzle", "meta", "_journal.json")).json()) as { entries: unknown[] };
  return journal.entries.length;
}

const onPostgres = Boolean(process.env.DATABASE_URL);

let t: TestDatabase;
beforeAll(async () => {
  t = await openTestDatabase();
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await t.close();
}, DATABASE_HOOK_TIMEOUT_MS);

async function tableNames(database: Database): Promise<string[]> {
  const rows = await database.rows<{ table_name: string }>(
    sql`select table_name from information_schema.tables where table_schema = 'public' order by table_name`,
  );
  return rows.map((r) => r.table_name);
}

describe("database", () => {
  test("opens the driver the environment asks for and answers ping", async () => {
    expect(t.database.kind).toBe(onPostgres ? "postgres" : "pglite");
    expect(t.databaseUrl === undefined).toBe(!onPostgres);
    await t.database.ping();
  });

  test("migrations create every table, and applying them again changes nothing", async () => {
    expect(await tableNames(t.database)).toEqual(["accounts", "admin_audit", "api_keys", "console_sessions", "routing_decisions", "smartplus_conversations", "smartplus_job_tokens", "smartplus_jobs", "usage_monthly", "usage_records"]);
    await Promise.all([migrateDatabase(t.database), migrateDatabase(t.database)]);
    const applied = await t.database.rows<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(applied[0]?.n).toBe(await migrationCount());
  });

  test("local subscribers get a notification before notify() resolves", async () => {
    const got: string[] = [];
    const unlisten = await t.database.listen("test_local", (p) => got.push(p), () => {});
    await t.database.notify("test_local", "hello");
    expect(got).toEqual(["hello"]);
    await unlisten();
    await t.database.notify("test_local", "after");
    expect(got).toEqual(["hello"]);
  });
});

describe.skipIf(!onPostgres)("postgres only", () => {
  test("a second handle receives notifications once, without its own echo", async () => {
    const other = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: "memory://" });
    try {
      const onOther: string[] = [];
      const onSelf: string[] = [];
      const { promise, resolve } = Promise.withResolvers<void>();
      await other.listen("test_cross", (p) => {
        onOther.push(p);
        resolve();
      }, () => {});
      await t.database.listen("test_cross", (p) => onSelf.push(p), () => {});
      await t.database.notify("test_cross", "one");
      await promise;
      // A round trip on the sender's own LISTEN connection proves no echo is pending.
      await other.notify("test_cross", "two");
      await t.database.ping();
      expect(onOther).toEqual(["one", "two"]);
      await Bun.sleep(0);
      expect(onSelf.filter((p) => p === "one")).toEqual(["one"]);
    } finally {
      await other.close();
    }
  });

  test("a dropped LISTEN connection reports the drop, re-listens and reports the reconnect", async () => {
    const other = await openDatabase({ databaseUrl: t.databaseUrl, dataDir: "memory://" });
    try {
      const dropped = Promise.withResolvers<void>();
      const reconnected = Promise.withResolvers<void>();
      const received = Promise.withResolvers<string>();
      await other.listen("test_drop", (p) => received.resolve(p), () => reconnected.resolve(), () => dropped.resolve());
      const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
      try {
        const name = new URL(t.databaseUrl!).pathname.slice(1);
        const killed = await admin`select pg_terminate_backend(pid) as ok from pg_stat_activity
          where datname = ${name} and query like 'listen %test_drop%'`;
        expect(killed.length).toBe(1);
      } finally {
        await admin.end();
      }
      await dropped.promise;
      await reconnected.promise;
      await t.database.notify("test_drop", "still listening");
      expect(await received.promise).toBe("still listening");
    } finally {
      await other.close();
    }
  });

  test("two handles migrating a fresh database at the same time both succeed", async () => {
    const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    const name = `routelane_t_${process.pid}_mig${Math.floor(Math.random() * 1e6)}`;
    await admin.unsafe(`create database "${name}"`);
    const url = new URL(process.env.DATABASE_URL!);
    url.pathname = `/${name}`;
    const a = await openDatabase({ databaseUrl: url.toString(), dataDir: "memory://" });
    const b = await openDatabase({ databaseUrl: url.toString(), dataDir: "memory://" });
    try {
      await Promise.all([migrateDatabase(a), migrateDatabase(b)]);
      expect(await tableNames(b)).toEqual(["accounts", "admin_audit", "api_keys", "console_sessions", "routing_decisions", "smartplus_conversations", "smartplus_job_tokens", "smartplus_jobs", "usage_monthly", "usage_records"]);
      const applied = await a.rows<{ n: number }>(sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
      // Each migration once, however many handles raced to apply it.
      expect(applied[0]?.n).toBe(await migrationCount());
    } finally {
      await a.close();
      await b.close();
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name}`;
      await admin.unsafe(`drop database if exists "${name}"`);
      await admin.end();
    }
  });
});
