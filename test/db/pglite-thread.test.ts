import { afterAll, beforeAll, describe, expect, spyOn, test } from "bun:test";
import { existsSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import {
  MEMORY_DATA_DIR,
  openPgliteThread,
  type PgliteSession,
  type PgliteThread,
} from "../../src/db/pglite-thread/open-pglite-thread.ts";

let db: PgliteThread;
beforeAll(async () => {
  db = await openPgliteThread(MEMORY_DATA_DIR);
  await db.exec("create table items (id int primary key, name text not null)");
}, 60_000);
afterAll(() => db.close());

const names = async (): Promise<string[]> => (await db.query<{ name: string }>("select name from items order by id")).rows.map((r) => r.name);

describe("PGlite on its own thread", () => {
  test("a query's rows, fields and affected rows come back as PGlite gives them, in object and array mode", async () => {
    const inserted = await db.query("insert into items (id, name) values ($1, $2), ($3, $4)", [1, "one", 2, "two"]);
    expect(inserted.affectedRows).toBe(2);
    const objects = await db.query<{ id: number; name: string }>("select id, name from items order by id");
    expect(objects.rows).toEqual([
      { id: 1, name: "one" },
      { id: 2, name: "two" },
    ]);
    expect(objects.fields.map((f) => f.name)).toEqual(["id", "name"]);
    const arrays = await db.query<unknown[]>("select id, name from items order by id", [], { rowMode: "array" });
    expect(arrays.rows).toEqual([
      [1, "one"],
      [2, "two"],
    ]);
    await db.query("delete from items");
  });

  test("types given a parser come back as Postgres's text (drizzle's parsers are all the identity)", async () => {
    const parsed = await db.query<{ at: unknown }>("select timestamptz '2026-01-02 03:04:05+00' as at");
    expect(parsed.rows[0]!.at).toBeInstanceOf(Date);
    const raw = await db.query<{ at: unknown }>("select timestamptz '2026-01-02 03:04:05+00' as at", [], { parsers: { 1184: (v: string) => v } });
    expect(raw.rows[0]!.at).toBe("2026-01-02 03:04:05+00");
  });

  test("an error keeps Postgres's fields (code, constraint), which callers branch on", async () => {
    await db.query("insert into items (id, name) values (1, 'one')");
    const error = await db.query("insert into items (id, name) values (1, 'again')").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(Error);
    expect((error as { code?: string }).code).toBe("23505");
    expect((error as { constraint?: string }).constraint).toBe("items_pkey");
    expect((error as Error).message).toContain("duplicate key");
    await db.query("delete from items");
  });

  test("a transaction commits when its function resolves, and rolls back when it throws", async () => {
    const value = await db.transaction(async (tx) => {
      await tx.query("insert into items (id, name) values (1, 'kept')");
      return (await tx.query<{ n: number }>("select count(*)::int as n from items")).rows[0]!.n;
    });
    expect(value).toBe(1);
    const failure = await db
      .transaction(async (tx) => {
        await tx.query("insert into items (id, name) values (2, 'dropped')");
        throw new Error("changed my mind");
      })
      .catch((e: unknown) => e);
    expect((failure as Error).message).toBe("changed my mind");
    expect(await names()).toEqual(["kept"]);
    await db.query("delete from items");
  });

  test("a query from outside waits for an open transaction, as on PGlite itself", async () => {
    let release!: () => void;
    const held = new Promise<void>((resolve) => (release = resolve));
    let inside!: (tx: PgliteSession) => void;
    const begun = new Promise<PgliteSession>((resolve) => (inside = resolve));
    const transaction = db.transaction(async (tx) => {
      await tx.query("insert into items (id, name) values (1, 'in tx')");
      inside(tx);
      await held;
    });
    const tx = await begun;
    let seen: string[] | undefined;
    const outside = names().then((rows) => (seen = rows));
    // Sent after the outside query, answered while it must still be waiting.
    await tx.query("select 1");
    expect(seen).toBeUndefined();
    release();
    await transaction;
    await outside;
    expect(seen).toEqual(["in tx"]);
    await db.query("delete from items");
  });

  test("COPY from a blob lands its rows", async () => {
    await db.query("copy items (id, name) from '/dev/blob'", [], { blob: new Blob(["1\tone\n2\ttwo\n"]) });
    expect(await names()).toEqual(["one", "two"]);
    await db.query("delete from items");
  });

  test("a dump opens as a copy that starts with the same rows", async () => {
    await db.query("insert into items (id, name) values (7, 'dumped')");
    const copy = await openPgliteThread(MEMORY_DATA_DIR, await db.dumpDataDir("none"));
    try {
      expect((await copy.query<{ name: string }>("select name from items")).rows).toEqual([{ name: "dumped" }]);
    } finally {
      await copy.close();
    }
    await db.query("delete from items");
  }, 60_000);

  test("after close, calls fail at once instead of waiting forever", async () => {
    const other = await openPgliteThread(MEMORY_DATA_DIR, await db.dumpDataDir("none"));
    await other.close();
    await expect(other.query("select 1")).rejects.toThrow("the PGlite thread has stopped");
  }, 60_000);
});

describe("a PGlite thread that stops outside a call", () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  });
  /**
   * Workers started for a thread, the newest last, and a way to stop the newest as a crash would
   * (terminated from outside, the database not closed), resolved once the thread has seen it go.
   */
  function crashable() {
    const workers: Worker[] = [];
    return {
      start: (url: string): Worker => {
        const worker = new Worker(url);
        workers.push(worker);
        return worker;
      },
      crash: async (): Promise<void> => {
        const worker = workers.at(-1)!;
        const closed = new Promise<void>((resolve) => worker.addEventListener("close", () => resolve(), { once: true }));
        worker.terminate();
        await closed;
      },
    };
  }
  async function onDisk(): Promise<{ thread: PgliteThread; dir: string; crash: () => Promise<void> }> {
    const dir = mkdtempSync(join(tmpdir(), "pglite-restart-"));
    dirs.push(dir);
    const workers = crashable();
    const thread = await openPgliteThread(dir, undefined, workers.start);
    await thread.exec("create table kept (id int primary key)");
    return { thread, dir, crash: workers.crash };
  }
  const ids = async (thread: PgliteThread): Promise<number[]> => (await thread.query<{ id: number }>("select id from kept order by id")).rows.map((r) => r.id);

  test("on a data directory it is reopened: committed rows are there, an open transaction's are not, and the call waiting on it failed", async () => {
    const { thread, crash } = await onDisk();
    const warn = spyOn(console, "warn").mockImplementation(() => {});
    try {
      await thread.query("insert into kept values (1)");
      let release!: () => void;
      const held = new Promise<void>((resolve) => (release = resolve));
      const { promise: begun, resolve: onBegun } = Promise.withResolvers<void>();
      const transaction = thread.transaction(async (tx) => {
        onBegun();
        await tx.query("insert into kept values (2)");
        await held;
        await tx.query("insert into kept values (3)");
      });
      await begun;
      // Queued behind the open transaction when the thread goes.
      const waiting = thread.query("select count(*) from kept").then(
        () => "answered",
        (error: Error) => error.message,
      );
      await crash();
      expect(await waiting).toBe("the PGlite thread has stopped");
      release();
      await expect(transaction).rejects.toThrow("the PGlite thread has stopped");
      expect(await ids(thread)).toEqual([1]);
      await thread.query("insert into kept values (4)");
      expect(await ids(thread)).toEqual([1, 4]);
      const lines = warn.mock.calls.map((args) => String(args[0]));
      expect(lines.some((line) => line.includes("PGlite thread stopped; reopened the database"))).toBe(true);
    } finally {
      warn.mockRestore();
      await thread.close();
    }
  }, 60_000);

  test("a data directory that has gone is not created anew: calls fail, and fail fast until the retry interval", async () => {
    const { thread, dir, crash } = await onDisk();
    const error = spyOn(console, "error").mockImplementation(() => {});
    try {
      await crash();
      rmSync(dir, { recursive: true, force: true });
      await expect(thread.query("select 1")).rejects.toThrow(`its data directory ${dir} has gone`);
      await expect(thread.query("select 1")).rejects.toThrow(`its data directory ${dir} has gone`);
      expect(existsSync(dir)).toBe(false);
      expect(error.mock.calls.filter((args) => String(args[0]).includes("reopening the database failed"))).toHaveLength(1);
    } finally {
      error.mockRestore();
      await thread.close();
    }
  }, 60_000);

  test("in memory it is not reopened (its data went with it): calls fail with the thread's error", async () => {
    const workers = crashable();
    const thread = await openPgliteThread(MEMORY_DATA_DIR, undefined, workers.start);
    await workers.crash();
    await expect(thread.query("select 1")).rejects.toThrow("the PGlite thread has stopped");
    await thread.close();
  }, 60_000);
});
