/** The production profile's database: one of the run's own on the given server. */
export interface BenchDatabase {
  /** The new database's URL: the given one with the database name replaced. */
  readonly url: string;
  /** Drops the database (after ending any connection still open to it). */
  drop(): Promise<void>;
}

/**
 * Creates a database of the run's own on the server `serverUrl` names (its role needs CREATEDB),
 * so a run migrates and writes its accounts and usage rows there, not into the database named,
 * and leaves nothing behind once `drop` has run. `role` tells apart the databases of one run
 * (the gateway's and the baseline checkout's).
 */
export async function createBenchDatabase(serverUrl: string, role = "gateway"): Promise<BenchDatabase> {
  const { default: postgres } = await import("postgres");
  const name = `routelane_bench_${process.pid}_${Date.now().toString(36)}_${role}`;
  const admin = postgres(serverUrl, { max: 1, onnotice: () => {} });
  try {
    await admin.unsafe(`create database "${name}"`);
  } catch (error) {
    await admin.end({ timeout: 5 });
    throw new Error(`could not create the run's database on ${new URL(serverUrl).host} (the role needs CREATEDB): ${error instanceof Error ? error.message : String(error)}`);
  }
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    async drop() {
      try {
        await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
        await admin.unsafe(`drop database if exists "${name}"`);
      } finally {
        await admin.end({ timeout: 5 });
      }
    },
  };
}
