import { count, sql } from "drizzle-orm";
import { chmod, mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { Database } from "../db/client.ts";
import { accounts } from "../db/schema/index.ts";
import { announce, insertAccountWithKey } from "./account-store.ts";

export const DEMO_EMAIL = "demo@localhost";
export const DEMO_KEY_FILE = "demo-key.txt";

/** Serialises seeding across instances that start together on one Postgres. */
const SEED_LOCK_KEY = 0x726c_6465_6d6f;

/**
 * On an empty accounts table, creates an Enterprise demo account (default tier normal), writes its
 * key to `<dataDir>/demo-key.txt` (mode 0600) and returns it for start-up to print once.
 * Returns null when any account exists.
 */
export async function seedDemoAccount(options: {
  database: Database;
  dataDir: string;
}): Promise<{ key: string; accountId: string } | null> {
  const { database, dataDir } = options;
  const created = await database.db.transaction(async (tx) => {
    await tx.execute(sql`select pg_advisory_xact_lock(${SEED_LOCK_KEY})`);
    const [row] = await tx.select({ n: count() }).from(accounts);
    if ((row?.n ?? 0) > 0) return null;
    return insertAccountWithKey(tx, { plan: "Enterprise", defaultTier: "normal", email: DEMO_EMAIL });
  });
  if (!created) return null;
  await announce(database, { kind: "key-created", accountId: created.row.id });

  await mkdir(dataDir, { recursive: true });
  const path = join(dataDir, DEMO_KEY_FILE);
  await writeFile(path, `${created.key.key}\n`, { mode: 0o600 });
  // The mode only applies to a new file; an old one may be wider.
  await chmod(path, 0o600);
  return { key: created.key.key, accountId: created.row.id };
}
