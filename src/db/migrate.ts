import { join } from "node:path";
import type { Database } from "./client.ts";

/** The generated SQL, found from this file rather than the working directory. */
export const MIGRATIONS_FOLDER = join(import.meta.dir, "..", "..", "drizzle");

/** Arbitrary constant shared by every Routelane instance: "routelane" as a 64-bit key. */
const MIGRATION_LOCK_KEY = 0x726f_7574_656c_616en;

/**
 * Applies the pending migrations (of `folder`: a test passes a copy holding the first few). On
 * Postgres, instances starting together serialise on a session advisory lock, held on a dedicated
 * one-connection client so the lock and drizzle's statements share a session; the second instance
 * then finds nothing left to apply.
 */
export function migrateDatabase(database: Database, folder = MIGRATIONS_FOLDER): Promise<void> {
  // Calls on one handle queue up (PGlite has no advisory-lock session to spare for this).
  const previous = running.get(database) ?? Promise.resolve();
  const next = previous.catch(() => {}).then(() => runMigrations(database, folder));
  running.set(database, next);
  return next;
}

const running = new WeakMap<Database, Promise<void>>();

async function runMigrations(database: Database, migrationsFolder: string): Promise<void> {
  const driver = database.driver;
  // Only the driver in use is loaded (see openDatabase).
  if (driver.kind === "pglite") {
    const [{ migrate: migratePglite }, { drizzle: drizzlePglite }, { asPglite }] = await Promise.all([
      import("drizzle-orm/pglite/migrator"),
      import("drizzle-orm/pglite"),
      import("./pglite-thread/as-pglite.ts"),
    ]);
    await migratePglite(drizzlePglite({ client: asPglite(driver.client) }), { migrationsFolder });
    return;
  }
  const [{ default: postgres }, { migrate: migratePostgres }, { drizzle: drizzlePostgres }] = await Promise.all([
    import("postgres"),
    import("drizzle-orm/postgres-js/migrator"),
    import("drizzle-orm/postgres-js"),
  ]);
  const client = postgres(driver.url, { max: 1, onnotice: () => {} });
  try {
    const key = BigInt.asIntN(64, MIGRATION_LOCK_KEY).toString();
    await client`select pg_advisory_lock(${key}::bigint)`;
    try {
      await migratePostgres(drizzlePostgres({ client }), { migrationsFolder });
    } finally {
      await client`select pg_advisory_unlock(${key}::bigint)`;
    }
  } finally {
    await client.end({ timeout: 5 });
  }
}
