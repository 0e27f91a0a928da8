import { afterAll, describe, expect, test } from "bun:test";
import { mkdtemp, readdir, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createAccountStore } from "../../src/accounts/account-store.ts";
import { openDatabase } from "../../src/db/client.ts";
import { migrateDatabase } from "../../src/db/migrate.ts";

const dirs: string[] = [];
afterAll(async () => {
  await Promise.all(dirs.map((d) => rm(d, { recursive: true, force: true })));
});

describe("PGlite on disk", () => {
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
      expect(await readdir(dataDir)).toEqual(["pglite"]);

      const second = await openDatabase({ dataDir });
      await migrateDatabase(second);
      expect((await createAccountStore(second).getAccount(account.id))?.plan).toBe("Starter");
      await second.close();
    },
    60_000,
  );
});
