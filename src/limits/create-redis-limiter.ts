import { buildLimitRefusal, rateLimitHeaders } from "./build-limit-refusal.ts";
import { RPM_WINDOW_MS, type Lease, type LimitDecision, type Limiter, type LimitSubject, type MonthlySpendLoader, type MonthlyTokensLoader } from "./limiter.ts";
import { monthWindow } from "./month-window.ts";
import { ACQUIRE_SCRIPT, INIT_MONTH_SCRIPT, REFRESH_SCRIPT, SETTLE_SCRIPT } from "./redis-scripts.ts";
import { RedisUnavailableError } from "../redis/create-redis-link.ts";
import { createScriptRunner, type RedisSend } from "./run-redis-script.ts";

export interface RedisLimiterOptions {
  /** The link's `send` (its deadline and outage handling apply to every script). */
  readonly send: RedisSend;
  /** Prefix of every key, e.g. `routelane:`. */
  readonly keyPrefix: string;
  readonly loadMonthlyTokens?: MonthlyTokensLoader | undefined;
  readonly loadMonthlySpend?: MonthlySpendLoader | undefined;
  /**
   * A slot lives this long unless its holder refreshes it (every third of it while held), so the
   * slots of a process that died lapse within this bound.
   */
  readonly leaseTtlMs?: number;
  readonly now?: () => number;
  readonly log?: (line: string) => void;
}

const CONCURRENCY_RETRY_MS = 1000;
/** Month counters outlive their month by a few days, then go. */
const MONTH_KEY_TTL_MS = 40 * 24 * 3600 * 1000;

/** One account's finished requests, not yet settled in Redis. */
interface Unsettled {
  readonly counters: Map<string, { readonly marker: string; amount: number }>;
  /** Concurrency zset and lease id of each slot to free. */
  readonly freed: [string, string][];
  /** Resolved once the call that frees the slots has been answered (or has failed). */
  readonly done: (() => void)[];
}

const asNumbers = (reply: unknown): number[] => (Array.isArray(reply) ? reply.map((v) => Number(v)) : []);

/**
 * The shared backend: every instance pointing at one Redis enforces one account's limits together.
 * Concurrency is a sorted set of lease ids scored by expiry; rpm a sorted set of request times.
 * Rejects with RedisUnavailableError when Redis cannot be reached (the fail-open wrapper catches it).
 */
export function createRedisLimiter(options: RedisLimiterOptions): Limiter & { heldLeases(): number } {
  const { send, keyPrefix } = options;
  const leaseTtlMs = options.leaseTtlMs ?? 30_000;
  const now = options.now ?? Date.now;
  const log = options.log ?? ((line: string) => console.warn(line));
  const acquireScript = createScriptRunner(send, ACQUIRE_SCRIPT);
  const refreshScript = createScriptRunner(send, REFRESH_SCRIPT);
  const initScript = createScriptRunner(send, INIT_MONTH_SCRIPT);
  const settleScript = createScriptRunner(send, SETTLE_SCRIPT);
  /** Leases held by this process: id → concurrency key, refreshed together on one timer. */
  const held = new Map<string, string>();
  const instance = crypto.randomUUID().slice(0, 8);
  let sequence = 0;

  const base = (accountId: string) => `${keyPrefix}limits:{${accountId}}`;
  /** The month's window, made again only when a request falls outside it (not a Date and a name a request). */
  let currentMonth = monthWindow(now());
  const monthKey = (at: number): string => {
    if (at < currentMonth.start || at >= currentMonth.end) currentMonth = monthWindow(at);
    return currentMonth.key;
  };
  /** The month's token counter and its marker, in the account's slot (`base`). */
  const monthKeys = (slot: string, at: number) => {
    const key = monthKey(at);
    return [`${slot}:tokens:${key}`, `${slot}:tokens-loaded:${key}`] as const;
  };
  /** A key's spend counter and its marker, in its account's slot (`base`). */
  const spendKeys = (slot: string, keyId: string, at: number) => {
    const month = monthKey(at);
    return [`${slot}:key:${keyId}:spend:${month}`, `${slot}:key:${keyId}:spend-loaded:${month}`] as const;
  };
  /** Keys with a spend cap seen by this process: only theirs are counted (one command a request otherwise). */
  const cappedKeys = new Set<string>();
  const MICRO = 1e6;
  /**
   * What each account's finished requests leave to settle: amounts to add, keyed by counter (its
   * marker beside it), and slots to free. Whatever gathers within one turn of the event loop goes
   * in one call after it (setImmediate): a JSON answer's tokens and its free slot, and under load
   * the requests whose answers ended in the same turn, each in a callback of its own (a microtask
   * settled each of them alone: two script calls a request, now about 1.3 at 32 connections).
   */
  const unsettled = new Map<string, Unsettled>();

  function settlement(accountId: string): Unsettled {
    let batch = unsettled.get(accountId);
    if (!batch) {
      unsettled.set(accountId, (batch = { counters: new Map(), freed: [], done: [] }));
      setImmediate(() => settle(accountId));
    }
    return batch;
  }

  function count(accountId: string, counter: string, marker: string, amount: number): void {
    const { counters } = settlement(accountId);
    const entry = counters.get(counter);
    if (entry) entry.amount += amount;
    else counters.set(counter, { marker, amount });
  }

  function settle(accountId: string): void {
    const batch = unsettled.get(accountId);
    unsettled.delete(accountId);
    if (!batch) return;
    const keys: string[] = [];
    const args: (string | number)[] = [batch.counters.size];
    for (const [counter, { marker, amount }] of batch.counters) {
      keys.push(counter, marker);
      args.push(amount);
    }
    for (const [concKey, id] of batch.freed) {
      keys.push(concKey);
      args.push(id);
    }
    const answered = () => {
      for (const resolve of batch.done) resolve();
    };
    // On a failure the counts are lost to the cap (the usage rows still hold them) and the slots lapse at their expiry.
    settleScript(keys, args).then(answered, answered);
  }

  const refresher = setInterval(() => {
    for (const [id, key] of held) {
      refreshScript([key], [id, leaseTtlMs]).catch(() => {});
    }
  }, Math.max(100, Math.floor(leaseTtlMs / 3)));
  refresher.unref?.();

  async function seedMonth(subject: LimitSubject, at: number): Promise<void> {
    const [counter, marker] = monthKeys(base(subject.accountId), at);
    const tokens = options.loadMonthlyTokens ? await options.loadMonthlyTokens(subject.accountId, new Date(monthWindow(at).start)) : 0;
    await initScript([counter, marker], [Math.max(0, Math.floor(tokens)), MONTH_KEY_TTL_MS]);
  }

  function leaseOf(accountId: string, id: string, concKey: string | null, headers: Readonly<Record<string, string>>): Lease {
    let live = true;
    if (concKey) held.set(id, concKey);
    return {
      headers,
      release() {
        if (!live) return;
        live = false;
        if (!concKey) return;
        held.delete(id);
        const batch = settlement(accountId);
        batch.freed.push([concKey, id]);
        return new Promise<void>((resolve) => batch.done.push(resolve));
      },
    };
  }

  async function seedSpend(subject: LimitSubject, keyId: string, at: number): Promise<void> {
    const [counter, marker] = spendKeys(base(subject.accountId), keyId, at);
    const usd = options.loadMonthlySpend ? await options.loadMonthlySpend(subject.accountId, keyId, new Date(monthWindow(at).start)) : 0;
    await initScript([counter, marker], [Math.max(0, Math.round(usd * MICRO)), MONTH_KEY_TTL_MS]);
  }

  async function attempt(subject: LimitSubject, seeded: boolean, spendSeeded = false): Promise<LimitDecision> {
    const { limits, plan, accountId } = subject;
    const keyId = subject.keyId ?? "-";
    const keyRpm = subject.keyLimits?.requestsPerMinute ?? null;
    const spendCap = subject.keyLimits?.monthlySpendUsd ?? null;
    if (spendCap !== null && subject.keyId !== undefined) cappedKeys.add(`${accountId}\n${subject.keyId}`);
    const at = now();
    const id = `${instance}:${(sequence = (sequence + 1) % Number.MAX_SAFE_INTEGER)}`;
    const slot = base(accountId);
    const rpmKey = `${slot}:rpm`;
    const concKey = `${slot}:conc`;
    const [counter, marker] = monthKeys(slot, at);
    // A key without limits of its own names three keys the script never touches: no month to compute.
    const keyed = subject.keyLimits != null;
    const [spendCounter, spendMarker] = keyed ? spendKeys(slot, keyId, at) : [rpmKey, rpmKey];
    const reply = asNumbers(
      await acquireScript(
        [rpmKey, concKey, counter, marker, keyed ? `${slot}:key:${keyId}:rpm` : rpmKey, spendCounter, spendMarker],
        [
          limits.requestsPerMinute ?? -1,
          limits.concurrentRequests ?? -1,
          limits.tokensPerMonth ?? -1,
          id,
          leaseTtlMs,
          RPM_WINDOW_MS,
          keyRpm ?? -1,
          spendCap === null ? -1 : Math.round(spendCap * MICRO),
        ],
      ),
    );
    const [code = 0, a = 0, b = 0, c = 0, d = 0] = reply;
    const rpm = limits.requestsPerMinute;
    switch (code) {
      case -1:
        if (seeded) throw new Error("monthly counter still unseeded after seeding");
        try {
          await seedMonth(subject, at);
        } catch (err) {
          if (err instanceof RedisUnavailableError) throw err;
          // Recorded usage unreadable (database down): this request goes without the monthly check.
          log(JSON.stringify({ level: "warn", msg: "monthly usage could not be loaded; monthly cap not enforced meanwhile", accountId, error: err instanceof Error ? err.message : String(err) }));
          return attempt({ ...subject, limits: { ...limits, tokensPerMonth: null } }, true);
        }
        return attempt(subject, true, spendSeeded);
      case -2:
        if (spendSeeded) throw new Error("key spend counter still unseeded after seeding");
        try {
          await seedSpend(subject, keyId, at);
        } catch (err) {
          if (err instanceof RedisUnavailableError) throw err;
          log(JSON.stringify({ level: "warn", msg: "monthly key spend could not be loaded; spend cap not enforced meanwhile", keyId, error: err instanceof Error ? err.message : String(err) }));
          return attempt({ ...subject, keyLimits: { ...subject.keyLimits!, monthlySpendUsd: null } }, seeded, true);
        }
        return attempt(subject, seeded, true);
      case 0: {
        let headers = rpm === null ? {} : rateLimitHeaders(rpm, rpm - a, b > 0 ? RPM_WINDOW_MS - b : RPM_WINDOW_MS);
        // The headers tell of whichever window has less left.
        if (keyRpm !== null && (rpm === null || keyRpm - c < rpm - a)) headers = rateLimitHeaders(keyRpm, keyRpm - c, d > 0 ? RPM_WINDOW_MS - d : RPM_WINDOW_MS);
        return { ok: true, lease: leaseOf(accountId, id, limits.concurrentRequests === null ? null : concKey, headers) };
      }
      case 1:
        return { ok: false, error: buildLimitRefusal({ kind: "rpm", plan, limit: rpm ?? 0, retryAfterMs: a, rpm: rpm === null ? null : { limit: rpm, remaining: 0, resetMs: a } }) };
      case 2: {
        const rpmHeaders = rpm === null ? null : { limit: rpm, remaining: rpm - a, resetMs: a > 0 ? RPM_WINDOW_MS - b : 0 };
        return { ok: false, error: buildLimitRefusal({ kind: "concurrency", plan, limit: limits.concurrentRequests ?? 0, retryAfterMs: CONCURRENCY_RETRY_MS, rpm: rpmHeaders }) };
      }
      case 3:
        return { ok: false, error: buildLimitRefusal({ kind: "monthly", plan, limit: limits.tokensPerMonth ?? 0, retryAfterMs: monthWindow(at).end - at, rpm: null }) };
      case 4:
        return { ok: false, error: buildLimitRefusal({ kind: "key_rpm", plan, limit: keyRpm ?? 0, retryAfterMs: a, rpm: keyRpm === null ? null : { limit: keyRpm, remaining: 0, resetMs: a } }) };
      case 5:
        return { ok: false, error: buildLimitRefusal({ kind: "key_spend", plan, limit: spendCap ?? 0, retryAfterMs: monthWindow(at).end - at, resetsAt: monthWindow(at).end, rpm: null }) };
      default:
        throw new Error(`unexpected limiter reply ${String(code)}`);
    }
  }

  return {
    acquire: (subject) => attempt(subject, false),
    addTokens(accountId, tokens) {
      if (tokens <= 0) return;
      const [counter, marker] = monthKeys(base(accountId), now());
      count(accountId, counter, marker, Math.floor(tokens));
    },
    addSpend(accountId, keyId, usd, unseen) {
      // An unseen key is counted too: the settle script adds only to a counter whose month is
      // seeded, which only a key with a cap has.
      if (!(usd > 0) || (!unseen && !cappedKeys.has(`${accountId}\n${keyId}`))) return;
      const [counter, marker] = spendKeys(base(accountId), keyId, now());
      count(accountId, counter, marker, Math.round(usd * MICRO));
    },
    heldLeases: () => held.size,
    async close() {
      clearInterval(refresher);
    },
  };
}
