import { describeDbError } from "../db/sanitize-db-error.ts";
import type { Classification } from "./classify-task.ts";
import { withTimeout } from "../canonical/with-timeout.ts";
import { dropOldest, trimmedSize } from "../canonical/drop-oldest.ts";

/** Where decisions outlive the process and are shared between instances. */
export interface DecisionStore {
  /** The decision under `key` unless it expired before `now`. */
  read(key: string, now: Date): Promise<Classification | null>;
  write(key: string, decision: Classification, expiresAt: Date): Promise<void>;
  /** Deletes rows that expired before `now`; returns how many. */
  deleteExpired(now: Date): Promise<number>;
}

export interface DecisionCacheOptions {
  readonly ttlMs: number;
  readonly lruSize: number;
  readonly store?: DecisionStore | undefined;
  readonly now?: () => number;
  /** Called when the store fails; the cache keeps working from memory. */
  readonly onError?: (err: unknown) => void;
  /** The longest a request waits for the store on a miss before it is classified anew (default 2 s). */
  readonly readDeadlineMs?: number;
}

export interface DecisionCache {
  /** Memory only: the warm path, no I/O. */
  peek(key: string): Classification | null;
  /** Memory, then the store on a miss (the hit is copied into memory). */
  get(key: string): Promise<Classification | null>;
  /** Into memory now; into the store in the background. */
  put(key: string, decision: Classification): void;
  /** Waits for background writes (tests, shutdown). */
  flush(): Promise<void>;
  readonly size: number;
}

interface Entry {
  readonly decision: Classification;
  readonly expiresAt: number;
}

const READ_DEADLINE_MS = 2_000;

/**
 * The 24-hour decision cache: an in-process LRU (a Map in recency order) in front of an optional
 * store. Writes to the store never hold up a request.
 */
export function createDecisionCache(options: DecisionCacheOptions): DecisionCache {
  const now = options.now ?? Date.now;
  // The driver's own message only: the query builder's quotes the query and its parameters.
  const onError = options.onError ?? ((err: unknown) => console.error(JSON.stringify({ level: "warn", msg: "decision cache store failed", error: describeDbError(err) })));
  const entries = new Map<string, Entry>();
  const pending = new Set<Promise<void>>();

  function remember(key: string, decision: Classification, expiresAt: number): void {
    if (options.lruSize === 0) return;
    entries.delete(key);
    entries.set(key, { decision, expiresAt });
    if (entries.size > options.lruSize) dropOldest(entries, trimmedSize(options.lruSize));
  }

  function peek(key: string): Classification | null {
    const entry = entries.get(key);
    if (!entry) return null;
    if (entry.expiresAt <= now()) {
      entries.delete(key);
      return null;
    }
    // Refresh recency: move to the end.
    entries.delete(key);
    entries.set(key, entry);
    return entry.decision;
  }

  function track(work: Promise<void>): void {
    const tracked = work.catch(onError).finally(() => pending.delete(tracked));
    pending.add(tracked);
  }

  return {
    peek,
    async get(key) {
      const hit = peek(key);
      if (hit || !options.store) return hit;
      try {
        // A read the driver never settles (one sent as the database dropped its connection) must
        // not hold the request: past the deadline it is a miss.
        const stored = await withTimeout(options.store.read(key, new Date(now())), options.readDeadlineMs ?? READ_DEADLINE_MS, "the decision store");
        if (stored) remember(key, stored, now() + options.ttlMs);
        return stored;
      } catch (err) {
        onError(err);
        return null;
      }
    },
    put(key, decision) {
      const expiresAt = now() + options.ttlMs;
      remember(key, decision, expiresAt);
      if (options.store) track(options.store.write(key, decision, new Date(expiresAt)));
    },
    async flush() {
      while (pending.size > 0) await Promise.all(pending);
    },
    get size() {
      return entries.size;
    },
  };
}
