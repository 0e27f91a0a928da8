import { readFileSync } from "node:fs";
import { join } from "node:path";
import { sql } from "drizzle-orm";
import type { Database } from "../db/client.ts";
import { MIGRATIONS_FOLDER } from "../db/migrate.ts";
import type { RedisLink } from "../redis/create-redis-link.ts";

export interface ReadinessResult {
  readonly ready: boolean;
  /**
   * Ready, with parts running on their in-process fallback: `redis` while it is unreachable (limits
   * per instance, pins and the cache's second level off). Still ready: every instance would be
   * taken out of the load balancer for an outage the gateway rides out.
   */
  readonly degraded?: readonly string[];
  /** The part that failed, named for the 503 body: `draining`, `database`, `migrations`, `redis`. */
  readonly failing?: string;
  readonly reason?: string;
}

export interface ReadinessOptions {
  readonly database: Database;
  /** The gateway's Redis link (REDIS_URL), whose state readiness reports. */
  readonly redis: RedisLink | undefined;
  readonly draining: () => boolean;
  /** How long one dependency may take to answer. */
  readonly timeoutMs?: number;
}

export interface ReadinessCheck {
  check(): Promise<ReadinessResult>;
}

function expectedMigrations(): number {
  const journal = JSON.parse(readFileSync(join(MIGRATIONS_FOLDER, "meta", "_journal.json"), "utf8")) as { entries: unknown[] };
  return journal.entries.length;
}

function withTimeout<T>(work: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms);
  });
  return Promise.race([work, timeout]).finally(() => clearTimeout(timer));
}

const message = (error: unknown): string => (error instanceof Error ? error.message.split("\n")[0]!.slice(0, 200) : "unreachable");

/**
 * `/readyz`: not draining, the database answers and has every migration applied; Redis (when
 * configured) unreachable makes it degraded, not unready. Errors are reduced to one line: never a
 * URL or credentials.
 */
export function createReadinessCheck(options: ReadinessOptions): ReadinessCheck {
  const timeoutMs = options.timeoutMs ?? 2_000;
  const expected = expectedMigrations();
  const check = async (): Promise<ReadinessResult> => {
    if (options.draining()) return { ready: false, failing: "draining", reason: "shutting down" };
    try {
      await withTimeout(options.database.ping(), timeoutMs, "the database");
    } catch (error) {
      return { ready: false, failing: "database", reason: message(error).replace(/postgres(ql)?:\/\/\S+/g, "[url]") };
    }
    try {
      const rows = await withTimeout(
        options.database.rows<{ count: number | string }>(sql`select count(*) as count from drizzle.__drizzle_migrations`),
        timeoutMs,
        "the database",
      );
      const applied = Number(rows[0]?.count ?? 0);
      if (applied < expected) return { ready: false, failing: "migrations", reason: `${applied} of ${expected} migrations applied` };
    } catch {
      return { ready: false, failing: "migrations", reason: "no migrations applied" };
    }
    // Down: answered from the link's state, without a call; up: one PING through it.
    if (options.redis && !(await options.redis.check())) return { ready: true, degraded: ["redis"] };
    return { ready: true };
  };
  return { check };
}
