import { sql, type SQL } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { mkdirSync } from "node:fs";
import { join } from "node:path";
import type postgres from "postgres";
import { lockDataDir } from "./lock-data-dir.ts";
import { MEMORY_DATA_DIR } from "./pglite-thread/memory-data-dir.ts";
import type { PgliteThread } from "./pglite-thread/open-pglite-thread.ts";
import * as schema from "./schema/index.ts";

export type Schema = typeof schema;
/** The common Drizzle type of both drivers. */
export type DrizzleDatabase = PgDatabase<PgQueryResultHKT, Schema>;

/** Called with the payload of each notification on the channel. */
export type NotificationHandler = (payload: string) => void;

export interface Database {
  readonly kind: "postgres" | "pglite";
  readonly db: DrizzleDatabase;
  /** Runs raw SQL and returns its rows the same way on both drivers (`db.execute` does not). */
  rows<T extends Record<string, unknown>>(query: SQL): Promise<T[]>;
  /** `select 1`; throws when the database cannot be reached. */
  ping(): Promise<void>;
  close(): Promise<void>;
  /**
   * Subscribes to a channel: notifications sent by any instance sharing the database, and by this
   * handle in this process (delivered at once, without waiting for the server's round trip).
   * `onReconnect` runs after a dropped LISTEN connection is listening again; `onDisconnect` runs as
   * soon as it drops. Notifications sent in between are lost, so callers flush what they cache.
   * Returns an unsubscribe function.
   */
  listen(
    channel: string,
    onPayload: NotificationHandler,
    onReconnect: () => void,
    onDisconnect?: () => void,
  ): Promise<() => Promise<void>>;
  /** `pg_notify` to every instance; local subscribers of this handle get it synchronously first. */
  notify(channel: string, payload: string): Promise<void>;
  /** Driver internals for the migrator. */
  readonly driver: { kind: "postgres"; url: string } | { kind: "pglite"; client: PgliteThread };
}

export interface OpenDatabaseOptions {
  /** postgres:// URL; unset → embedded PGlite. */
  databaseUrl?: string | undefined;
  /** PGlite keeps its files in `<dataDir>/pglite`; `memory://` keeps everything in memory. */
  dataDir: string;
  /**
   * PGlite: a new database (in memory, or a data dir that has none yet) starts from this data dir
   * (a `dumpDataDir` tarball) instead of running initdb. A test suite opens many databases: from a
   * migrated dump each takes about 0.3 s, against about 1.9 s to initialise and migrate. Unset, a
   * built executable uses the template it embeds (`readBuiltInTemplate`).
   */
  initialData?: Blob | undefined;
}

export { MEMORY_DATA_DIR };

/** Connections each process keeps to Postgres. */
export const POSTGRES_POOL_SIZE = 10;

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  if (options.databaseUrl) return openPostgres(options.databaseUrl);
  return openPglite(options.dataDir, options.initialData);
}

/** Local fan-out shared by both drivers. */
function createLocalBus() {
  const handlers = new Map<string, Set<NotificationHandler>>();
  return {
    add(channel: string, handler: NotificationHandler): () => void {
      let set = handlers.get(channel);
      if (!set) handlers.set(channel, (set = new Set()));
      set.add(handler);
      return () => void set.delete(handler);
    },
    emit(channel: string, payload: string): void {
      for (const handler of handlers.get(channel) ?? []) {
        try {
          handler(payload);
        } catch (err) {
          console.error(`notification handler for ${channel} failed:`, err);
        }
      }
    },
  };
}

/**
 * Each driver's modules are loaded only when that driver opens: PGlite's JavaScript (through
 * drizzle's PGlite driver) held about 5 MB of a gateway on Postgres that never used it, and
 * postgres.js about as much of one on PGlite. Opening happens once, at start, off any request.
 */
async function openPglite(dataDir: string, initialData: Blob | undefined): Promise<Database> {
  const [{ drizzle: drizzlePglite }, { asPglite }, { readBuiltInTemplate }, { openPgliteThread }] = await Promise.all([
    import("drizzle-orm/pglite"),
    import("./pglite-thread/as-pglite.ts"),
    import("./pglite-thread/built-in-template.ts"),
    import("./pglite-thread/open-pglite-thread.ts"),
  ]);
  let location = MEMORY_DATA_DIR;
  let unlock = (): void => {};
  if (dataDir !== MEMORY_DATA_DIR) {
    location = join(dataDir, "pglite");
    mkdirSync(location, { recursive: true });
    unlock = lockDataDir(dataDir);
  }
  let client: PgliteThread;
  try {
    client = await openPgliteThread(location, initialData ?? (await readBuiltInTemplate()));
  } catch (error) {
    unlock();
    throw error;
  }
  const db = drizzlePglite({ client: asPglite(client), schema }) as unknown as DrizzleDatabase;
  const bus = createLocalBus();
  let closed = false;
  return {
    kind: "pglite",
    db,
    driver: { kind: "pglite", client },
    async rows<T extends Record<string, unknown>>(query: SQL) {
      const result = (await db.execute(query)) as unknown as { rows: T[] };
      return result.rows;
    },
    async ping() {
      await db.execute(sql`select 1`);
    },
    async close() {
      if (closed) return;
      closed = true;
      try {
        await client.close();
      } finally {
        unlock();
      }
    },
    // One process owns a PGlite data dir, so in-process delivery is the whole story.
    async listen(channel, onPayload) {
      const remove = bus.add(channel, onPayload);
      return async () => remove();
    },
    async notify(channel, payload) {
      bus.emit(channel, payload);
    },
  };
}

const RELISTEN_MIN_MS = 100;
const RELISTEN_MAX_MS = 5_000;

async function openPostgres(url: string): Promise<Database> {
  const [{ default: postgres }, { drizzle: drizzlePostgres }] = await Promise.all([import("postgres"), import("drizzle-orm/postgres-js")]);
  const client = postgres(url, { max: POSTGRES_POOL_SIZE, onnotice: () => {} });
  const db = drizzlePostgres({ client, schema }) as unknown as DrizzleDatabase;
  const bus = createLocalBus();
  // Payloads on the wire carry this handle's id so it can skip its own echo (already delivered locally).
  const origin = crypto.randomUUID().replaceAll("-", "").slice(0, 12);
  const listener = createPgListener(postgres, url, (channel, wire) => {
    const colon = wire.indexOf(":");
    if (colon >= 0 && wire.slice(0, colon) === origin) return;
    bus.emit(channel, colon >= 0 ? wire.slice(colon + 1) : wire);
  });
  let closed = false;

  await client`select 1`;

  return {
    kind: "postgres",
    db,
    driver: { kind: "postgres", url },
    async rows<T extends Record<string, unknown>>(query: SQL) {
      return [...((await db.execute(query)) as unknown as Iterable<T>)];
    },
    async ping() {
      await client`select 1`;
    },
    async close() {
      if (closed) return;
      closed = true;
      await listener.stop();
      await client.end({ timeout: 5 });
    },
    async listen(channel, onPayload, onReconnect, onDisconnect) {
      const removeLocal = bus.add(channel, onPayload);
      const removeRemote = await listener.subscribe(channel, { onReconnect, onDisconnect });
      return async () => {
        removeLocal();
        await removeRemote();
      };
    },
    async notify(channel, payload) {
      await client`select pg_notify(${channel}, ${`${origin}:${payload}`})`;
      bus.emit(channel, payload);
    },
  };
}

interface ConnectionWatcher {
  readonly onReconnect: () => void;
  readonly onDisconnect: (() => void) | undefined;
}

/**
 * One dedicated LISTEN connection per handle, shared by every channel, so handlers on one handle
 * see notifications in one order. We manage reconnection ourselves: postgres.js's own listen()
 * re-listens once after a drop and gives up silently if that attempt fails, leaving caches stale.
 */
function createPgListener(connectTo: typeof postgres, url: string, deliver: (channel: string, wire: string) => void) {
  const channels = new Map<string, Set<ConnectionWatcher>>();
  let connection: postgres.Sql | undefined;
  let connecting: Promise<postgres.Sql> | undefined;
  let retryTimer: ReturnType<typeof setTimeout> | undefined;
  let delay = RELISTEN_MIN_MS;
  let stopped = false;

  const quote = (channel: string) => `"${channel.replaceAll('"', '""')}"`;
  const watchers = () => [...channels.values()].flatMap((set) => [...set]);

  async function connect(): Promise<postgres.Sql> {
    let listening = false;
    // `onnotify` is a real postgres.js option (its own listen() is built on it) but not in its types.
    const sql = connectTo(url, {
      max: 1,
      idle_timeout: null,
      max_lifetime: null,
      fetch_types: false,
      onnotice: () => {},
      onnotify: deliver,
      onclose: () => {
        // Only a connection that was listening counts as a drop; a failed attempt is retried below.
        if (!listening || stopped) return;
        listening = false;
        connection = undefined;
        void sql.end({ timeout: 0 }).catch(() => {});
        for (const watcher of watchers()) watcher.onDisconnect?.();
        scheduleRetry();
      },
    } as unknown as postgres.Options<Record<string, postgres.PostgresType>>);
    try {
      await sql`select 1`;
      for (const channel of channels.keys()) await sql.unsafe(`listen ${quote(channel)}`);
    } catch (err) {
      await sql.end({ timeout: 0 }).catch(() => {});
      throw err;
    }
    listening = true;
    connection = sql;
    return sql;
  }

  function scheduleRetry(): void {
    if (stopped || retryTimer) return;
    retryTimer = setTimeout(async () => {
      retryTimer = undefined;
      try {
        await connect();
        delay = RELISTEN_MIN_MS;
        for (const watcher of watchers()) watcher.onReconnect();
      } catch {
        delay = Math.min(delay * 2, RELISTEN_MAX_MS);
        scheduleRetry();
      }
    }, delay);
  }

  return {
    async subscribe(channel: string, watcher: ConnectionWatcher): Promise<() => Promise<void>> {
      let set = channels.get(channel);
      const isNew = !set;
      if (!set) channels.set(channel, (set = new Set()));
      set.add(watcher);
      try {
        let conn = connection;
        if (!conn) {
          // A pending retry after a drop is pre-empted: connect now, then tell the others.
          const wasDropped = retryTimer !== undefined;
          if (retryTimer) clearTimeout(retryTimer);
          retryTimer = undefined;
          try {
            conn = await (connecting ??= connect().finally(() => (connecting = undefined)));
          } catch (err) {
            if (wasDropped) scheduleRetry();
            throw err;
          }
          if (wasDropped) for (const other of watchers()) if (other !== watcher) other.onReconnect();
        }
        // Repeating LISTEN is a no-op, so a channel that connect() already covered is harmless here.
        if (isNew) await conn.unsafe(`listen ${quote(channel)}`);
      } catch (err) {
        set.delete(watcher);
        if (set.size === 0) channels.delete(channel);
        throw err;
      }
      return async () => {
        set.delete(watcher);
        if (set.size > 0 || channels.get(channel) !== set) return;
        channels.delete(channel);
        await connection?.unsafe(`unlisten ${quote(channel)}`).catch(() => {});
      };
    },
    async stop(): Promise<void> {
      stopped = true;
      if (retryTimer) clearTimeout(retryTimer);
      await connecting?.catch(() => {});
      await connection?.end({ timeout: 0 }).catch(() => {});
      connection = undefined;
    },
  };
}
