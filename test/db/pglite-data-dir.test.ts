import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountStore } from "../../src/accounts/account-store.ts";
import { MEMORY_DATA_DIR, openDatabase } from "../../src/db/client.ts";
import { migrateDatabase } from "../../src/db/migrate.ts";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

/** A migrated in-memory database holding one Pro account, and its data dir dumped. */
async function dumpWithProAccount(compression: "none" | "gzip") {
  const source = await openDatabase({ dataDir: MEMORY_DATA_DIR });
  await migrateDatabase(source);
  const { account } = await createAccountStore(source).createAccount({ plan: "Pro" });
  if (source.driver.kind !== "pglite") throw new Error("expected PGlite");
  return { source, account, dump: await source.driver.client.dumpDataDir(compression) };
}

describe("PGlite on disk", () => {
  test("a data dir opens in one place at a time: a second open is refused until the first closes", async () => {
    const dataDir = await mkdtemp(join(tmpdir(), "routelane-pglite-lock-"));
    dirs.push(dataDir);
    const { source, dump } = await dumpWithProAccount("none");
    await source.close();
    const first = await openDatabase({ dataDir, initialData: dump });
    try {
      await expect(openDatabase({ dataDir })).rejects.toThrow(`data dir ${dataDir} is in use by another process (pid ${process.pid})`);
    } finally {
      await first.close();
    }
    const second = await openDatabase({ dataDir });
    await second.ping();
    await second.close();
  }, 60_000);

  test(
    "creates the data dir, keeps its files under <dataDir>/pglite and data survives a reopen",
    async () => {
      const root = await mkdtemp(join(tmpdir(), "routelane-pglite-"));
      dirs.push(root);
      const dataDir = join(root, "data");
      const first = await openDatabase({ dataDir });
      expect(first.kind).toBe("pglite");
      await migrateDatabase(first);
      const { account } = await createAccountStore(first).createAccount({ plan: "Starter" });
      await first.close();
      expect((await readdir(dataDir)).sort()).toEqual(["pglite", "routelane.lock"]);

      const second = await openDatabase({ dataDir });
      await migrateDatabase(second);
      expect((await createAccountStore(second).getAccount(account.id))?.plan).toBe("Starter");
      await second.close();
    },
    60_000,
  );

  test(
    "a new data dir does not keep initdb's memory: the process's RSS after opening it is that of a reopen",
    async () => {
      const root = await mkdtemp(join(tmpdir(), "routelane-pglite-"));
      dirs.push(root);
      // In a process of its own, as the gateway is: the memory measured is the database's alone.
      // RSS, not the heap: PGlite runs on a thread of its own, with a heap of its own.
      const script = `
        import { openDatabase } from ${JSON.stringify(join(import.meta.dir, "../../src/db/client.ts"))};
        const database = await openDatabase({ dataDir: process.argv[1] });
        await database.ping();
        Bun.gc(true);
        console.log(process.memoryUsage().rss);
        await database.close();`;
      const rssAfterOpen = async (): Promise<number> => {
        const child = Bun.spawn([process.execPath, "-e", script, join(root, "data")], { stdout: "pipe", stderr: "inherit" });
        const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
        expect(code).toBe(0);
        return Number(out.trim());
      };
      const created = await rssAfterOpen();
      const reopened = await rssAfterOpen();
      // The buffer pool is 16 MB (PGLITE_START_PARAMS): with PGlite's 128 MB a reopen held 273 MB, now about 150 MB.
      expect(reopened).toBeLessThan(210 * 1024 * 1024);
      // Kept, initdb's PGlite made the process about 0.2 GB larger than a reopen (497 against 295 MB;
      // 790 against 370 MB when PGlite ran on the main thread).
      expect(reopened).toBeGreaterThan(0);
      expect(created).toBeLessThan(reopened + 100_000_000);
    },
    60_000,
  );

  test(
    "an in-memory database opened from a dumped data dir starts with what the dump held, and stays apart from it",
    async () => {
      const { source, account, dump } = await dumpWithProAccount("none");

      const copy = await openDatabase({ dataDir: MEMORY_DATA_DIR, initialData: dump });
      expect(copy.kind).toBe("pglite");
      await migrateDatabase(copy);
      const copied = createAccountStore(copy);
      expect((await copied.getAccount(account.id))?.plan).toBe("Pro");
      const { account: later } = await copied.createAccount({ plan: "Starter" });
      expect(await createAccountStore(source).getAccount(later.id)).toBeNull();
      await Promise.all([source.close(), copy.close()]);
    },
    60_000,
  );

  test(
    "a new data dir starts from initial data instead of initdb; an existing one is opened as it is",
    async () => {
      // Gzipped, as the built executable embeds it.
      const { source, account, dump } = await dumpWithProAccount("gzip");
      await source.close();

      const root = await mkdtemp(join(tmpdir(), "routelane-pglite-"));
      dirs.push(root);
      const dataDir = join(root, "data");
      const first = await openDatabase({ dataDir, initialData: dump });
      // Only the dump held this account: initdb would have made an empty database.
      expect((await createAccountStore(first).getAccount(account.id))?.plan).toBe("Pro");
      const { account: later } = await createAccountStore(first).createAccount({ plan: "Starter" });
      await first.close();

      // PGlite refuses to load a tarball over a database; the dump must not be loaded again either.
      const second = await openDatabase({ dataDir, initialData: dump });
      const store = createAccountStore(second);
      expect((await store.getAccount(later.id))?.plan).toBe("Starter");
      expect((await store.getAccount(account.id))?.plan).toBe("Pro");
      await second.close();
    },
    60_000,
  );
});
