import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { PlanLimits } from "../../src/canonical/plans.ts";
import { createFailOpenLimiter } from "../../src/limits/create-fail-open-limiter.ts";
import { createLimiter } from "../../src/limits/create-limiter.ts";
import { createMemoryLimiter } from "../../src/limits/create-memory-limiter.ts";
import { createRedisLimiter } from "../../src/limits/create-redis-limiter.ts";
import type { Lease, LimitDecision, LimitSubject } from "../../src/limits/limiter.ts";
import { monthWindow } from "../../src/limits/month-window.ts";
import { createRedisLink, type RedisLink, type RedisStateChange } from "../../src/redis/create-redis-link.ts";

const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const PREFIX = `rltest:${process.pid}:${crypto.randomUUID().slice(0, 8)}:`;
const HOOK_MS = 30_000;

let a: RedisLink;
let b: RedisLink;

beforeAll(async () => {
  // Two links stand for two gateway instances sharing one Redis.
  a = createRedisLink({ url: REDIS_URL });
  b = createRedisLink({ url: REDIS_URL });
  await Promise.all([a.check(), b.check()]);
}, HOOK_MS);

afterAll(async () => {
  let cursor = "0";
  do {
    const [next, keys] = (await a.send("SCAN", [cursor, "MATCH", `${PREFIX}*`, "COUNT", "500"])) as [string, string[]];
    cursor = next;
    if (keys.length > 0) await a.send("DEL", keys);
  } while (cursor !== "0");
  a.close();
  b.close();
}, HOOK_MS);

const limitsOf = (rpm: number | null, conc: number | null, tokens: number | null = null): PlanLimits => ({
  requestsPerMinute: rpm,
  concurrentRequests: conc,
  tokensPerMonth: tokens,
});
const subjectOf = (accountId: string, limits: PlanLimits, plan: LimitSubject["plan"] = "Starter"): LimitSubject => ({ accountId, plan, limits });
const okCount = (ds: LimitDecision[]) => ds.filter((d) => d.ok).length;
const leasesOf = (ds: LimitDecision[]): Lease[] => ds.flatMap((d) => (d.ok ? [d.lease] : []));

describe("redis limiter: exact across two instances", () => {
  test("rpm: of 70 simultaneous requests split over two instances exactly 60 pass", async () => {
    const one = createRedisLimiter({ send: a.send, keyPrefix: PREFIX });
    const two = createRedisLimiter({ send: b.send, keyPrefix: PREFIX });
    const s = subjectOf("acct_rpm", limitsOf(60, null));
    const decisions = await Promise.all(Array.from({ length: 70 }, (_, i) => (i % 2 === 0 ? one : two).acquire(s)));
    expect(okCount(decisions)).toBe(60);
    const refusal = decisions.find((d) => !d.ok);
    if (!refusal || refusal.ok) throw new Error("expected a refusal");
    expect(refusal.error.message).toBe("rate limit of 60 requests per minute for plan Starter exceeded");
    expect(refusal.error.headers["x-ratelimit-remaining-requests"]).toBe("0");
    expect(Number(refusal.error.headers["retry-after-ms"])).toBeGreaterThan(55_000);
    const remaining = leasesOf(decisions).map((l) => Number(l.headers["x-ratelimit-remaining-requests"]));
    expect(remaining.sort((x, y) => x - y)).toEqual(Array.from({ length: 60 }, (_, i) => i));
    await Promise.all([one.close(), two.close()]);
  });

  test("concurrency: of 10 simultaneous requests exactly 4 hold a slot; a release on one instance frees it for the other", async () => {
    const one = createRedisLimiter({ send: a.send, keyPrefix: PREFIX });
    const two = createRedisLimiter({ send: b.send, keyPrefix: PREFIX });
    const s = subjectOf("acct_conc", limitsOf(null, 4));
    const decisions = await Promise.all(Array.from({ length: 10 }, (_, i) => (i % 2 === 0 ? one : two).acquire(s)));
    expect(okCount(decisions)).toBe(4);
    const refusal = decisions.find((d) => !d.ok);
    if (!refusal || refusal.ok) throw new Error("expected a refusal");
    expect(refusal.error.message).toBe("concurrency limit of 4 concurrent requests for plan Starter exceeded");
    const leases = leasesOf(decisions);
    leases[0]!.release();
    leases[0]!.release();
    // Release is sent without waiting; the next command on that connection runs after it.
    await Promise.all([a.send("PING", []), b.send("PING", [])]);
    expect(okCount(await Promise.all([one.acquire(s), two.acquire(s)]))).toBe(1);
    expect(Number(await a.send("ZCARD", [`${PREFIX}limits:{acct_conc}:conc`]))).toBe(4);
    await Promise.all([one.close(), two.close()]);
  });

  test("a dead instance's slots lapse after the lease ttl; a live holder keeps its slot by refreshing", async () => {
    const dead = createRedisLimiter({ send: a.send, keyPrefix: PREFIX, leaseTtlMs: 400 });
    const live = createRedisLimiter({ send: b.send, keyPrefix: PREFIX, leaseTtlMs: 400 });
    const s = subjectOf("acct_dead", limitsOf(null, 2));
    expect((await dead.acquire(s)).ok).toBe(true);
    expect((await live.acquire(s)).ok).toBe(true);
    await dead.close(); // stops refreshing, as a crashed process would, without releasing
    expect((await live.acquire(s)).ok).toBe(false);
    const started = Date.now();
    let freed = false;
    while (!freed && Date.now() - started < 3000) {
      await Bun.sleep(50);
      const d = await live.acquire(s);
      freed = d.ok;
    }
    expect(freed).toBe(true);
    const waited = Date.now() - started;
    expect(waited).toBeGreaterThanOrEqual(250);
    expect(waited).toBeLessThan(1500);
    // The live instance's first lease is older than its ttl by now and is still held.
    expect((await live.acquire(s)).ok).toBe(false);
    await live.close();
  });

  test("monthly cap: seeded once from recorded usage, then counted by addTokens from every instance", async () => {
    let loads = 0;
    const loader = async () => {
      loads++;
      return 19_999_000;
    };
    const one = createRedisLimiter({ send: a.send, keyPrefix: PREFIX, loadMonthlyTokens: loader });
    const two = createRedisLimiter({ send: b.send, keyPrefix: PREFIX, loadMonthlyTokens: loader });
    const s = subjectOf("acct_month", limitsOf(null, null, 20_000_000));
    const first = await Promise.all([one.acquire(s), two.acquire(s)]);
    expect(okCount(first)).toBe(2);
    expect(loads).toBeGreaterThanOrEqual(1);
    one.addTokens("acct_month", 600);
    two.addTokens("acct_month", 400);
    await Promise.all([a.send("PING", []), b.send("PING", [])]);
    const refused = await one.acquire(s);
    if (refused.ok) throw new Error("expected the monthly cap");
    expect(refused.error.message).toBe("token limit of 20000000 tokens per month for plan Starter exceeded");
    expect((await two.acquire(s)).ok).toBe(false);
    await Promise.all([one.close(), two.close()]);
  });
});

test("monthly usage unreadable (database down): the request passes without the monthly check, and is said once in the log", async () => {
  const lines: string[] = [];
  const limiter = createRedisLimiter({
    send: a.send,
    keyPrefix: PREFIX,
    log: (l) => lines.push(l),
    loadMonthlyTokens: async () => {
      throw new Error("database unreachable");
    },
  });
  const d = await limiter.acquire(subjectOf("acct_noload", limitsOf(10, 10, 100)));
  expect(d.ok).toBe(true);
  expect(lines.some((l) => l.includes("monthly cap not enforced"))).toBe(true);
  await limiter.close();
});

describe("fail-open wrapper", () => {
  test("Redis unreachable: requests are limited in-process, the state is exposed; the link says it once", async () => {
    const changes: RedisStateChange[] = [];
    const down = createRedisLink({ url: "redis://127.0.0.1:1", backoffMs: 60_000, onChange: (c) => void changes.push(c) });
    const limiter = createFailOpenLimiter({
      primary: createRedisLimiter({ send: down.send, keyPrefix: PREFIX }),
      fallback: createMemoryLimiter(),
      primaryUp: () => down.up,
    });
    const s = subjectOf("acct_down", limitsOf(60, 1));
    const first = await limiter.acquire(s);
    expect(first.ok).toBe(true);
    expect(limiter.degraded).toBe(true);
    // Still limited, by the in-process counts, which answer at once while Redis is down.
    const second = limiter.acquire(s);
    expect(second instanceof Promise).toBe(false);
    expect((await second).ok).toBe(false);
    if (first.ok) first.lease.release();
    expect((await limiter.acquire(s)).ok).toBe(true);
    expect(changes.map((c) => c.state)).toEqual(["down"]);
    await limiter.close();
    down.close();
  });

  test("Redis reachable: the wrapper uses it and is not degraded", async () => {
    const limiter = createFailOpenLimiter({ primary: createRedisLimiter({ send: a.send, keyPrefix: PREFIX }), fallback: createMemoryLimiter(), primaryUp: () => a.up });
    const d = await limiter.acquire(subjectOf("acct_up", limitsOf(5, 5)));
    expect(d.ok).toBe(true);
    expect(limiter.degraded).toBe(false);
    expect(Number(await a.send("ZCARD", [`${PREFIX}limits:{acct_up}:conc`]))).toBe(1);
    await limiter.close();
  });
});

describe("createLimiter (from config)", () => {
  const config = { redis: { keyPrefix: PREFIX, leaseTtlMs: 30_000, commandTimeoutMs: 250, backoffMs: 500 } };

  test("no REDIS_URL: the in-process backend, answering synchronously", async () => {
    const limiter = createLimiter({ config });
    expect(limiter.backend).toBe("memory");
    expect(limiter.acquire(subjectOf("acct_cfg_mem", limitsOf(5, 5))) instanceof Promise).toBe(false);
    await limiter.close();
  });

  test("REDIS_URL reachable: counts are in Redis under the configured prefix", async () => {
    const limiter = createLimiter({ config, redis: a, log: () => {} });
    const d = await limiter.acquire(subjectOf("acct_cfg_redis", limitsOf(5, 5)));
    expect(d.ok).toBe(true);
    expect(limiter.backend).toBe("redis");
    expect(limiter.degraded).toBe(false);
    expect(Number(await a.send("ZCARD", [`${PREFIX}limits:{acct_cfg_redis}:rpm`]))).toBe(1);
    await limiter.close();
  });

  test("REDIS_URL unreachable: serves on in-process limits, degraded", async () => {
    const down = createRedisLink({ url: "redis://127.0.0.1:1", backoffMs: 60_000 });
    const limiter = createLimiter({ config, redis: down, log: () => {} });
    const d = await limiter.acquire(subjectOf("acct_cfg_down", limitsOf(5, 5)));
    expect(d.ok).toBe(true);
    expect(limiter.degraded).toBe(true);
    await limiter.close();
    down.close();
  });
});

/** Link `a`'s send, noting each command's name. */
function countingSend(): { calls: string[]; counted: (command: string, args: readonly string[]) => Promise<unknown> } {
  const calls: string[] = [];
  return {
    calls,
    counted: (command, args) => {
      calls.push(command);
      return a.send(command, args);
    },
  };
}

/** The month's first request: it seeds the counters from recorded usage. */
async function seedMonth(limiter: ReturnType<typeof createRedisLimiter>, subject: LimitSubject): Promise<void> {
  const seeding = await limiter.acquire(subject);
  if (!seeding.ok) throw new Error("expected a lease");
  await seeding.lease.release();
}

describe("redis limiter: round trips", () => {
  test("a request with every limit set takes them all in one call, frees its slot in one, and counts its tokens and its key's spend in one", async () => {
    const { calls, counted } = countingSend();
    const limiter = createRedisLimiter({ send: counted, keyPrefix: PREFIX, loadMonthlyTokens: async () => 0, loadMonthlySpend: async () => 0 });
    const subject: LimitSubject = {
      ...subjectOf("acct_round_trips", limitsOf(1_000, 10, 1_000_000)),
      keyId: "key_round_trips",
      keyLimits: { allowedTiers: null, requestsPerMinute: 1_000, monthlySpendUsd: 100 },
    };
    // The first request of the month seeds the counters from recorded usage.
    await seedMonth(limiter, subject);

    calls.length = 0;
    const decision = await limiter.acquire(subject);
    if (!decision.ok) throw new Error("expected a lease");
    expect(calls.length).toBe(1);
    await decision.lease.release();
    expect(calls.length).toBe(2);
    // What the usage observer does when the request has finished.
    limiter.addTokens("acct_round_trips", 120);
    limiter.addSpend("acct_round_trips", "key_round_trips", 0.25);
    await a.send("PING", []);
    expect(calls.length).toBe(3);
    const base = `${PREFIX}limits:{acct_round_trips}`;
    const month = monthWindow(Date.now()).key;
    expect(await a.send("GET", [`${base}:tokens:${month}`])).toBe("120");
    expect(await a.send("GET", [`${base}:key:key_round_trips:spend:${month}`])).toBe("250000");
    await limiter.close();
  });

  test("a Smart+ job's cost reaches the key's spend even on an instance that never served the key", async () => {
    const serving = createRedisLimiter({ send: a.send, keyPrefix: PREFIX, loadMonthlyTokens: async () => 0, loadMonthlySpend: async () => 0 });
    const worker = createRedisLimiter({ send: b.send, keyPrefix: PREFIX });
    const subject: LimitSubject = { ...subjectOf("acct_job_spend", limitsOf(null, null)), keyId: "key_job_spend", keyLimits: { allowedTiers: null, requestsPerMinute: null, monthlySpendUsd: 1 } };
    // The instance that served the turn seeded the key's month.
    await seedMonth(serving, subject);
    const spend = `${PREFIX}limits:{acct_job_spend}:key:key_job_spend:spend:${monthWindow(Date.now()).key}`;
    // A request's cost from a key this instance never served is left out (one command a request otherwise)…
    worker.addSpend("acct_job_spend", "key_job_spend", 0.25);
    await b.send("PING", []);
    expect(await a.send("GET", [spend])).toBe("0");
    // …but a job's model call, which runs on whichever instance claims the job, is counted.
    worker.addSpend("acct_job_spend", "key_job_spend", 0.25, true);
    await b.send("PING", []);
    expect(await a.send("GET", [spend])).toBe("250000");
    // A key without a cap has no seeded month: nothing is written for it.
    worker.addSpend("acct_job_spend", "key_uncapped", 0.25, true);
    await b.send("PING", []);
    expect(await a.send("EXISTS", [`${PREFIX}limits:{acct_job_spend}:key:key_uncapped:spend:${monthWindow(Date.now()).key}`])).toBe(0);
    await Promise.all([serving.close(), worker.close()]);
  });

  test("slots freed by requests that end in the same turn of the event loop, each in a task of its own, go in one call", async () => {
    const { calls, counted } = countingSend();
    const limiter = createRedisLimiter({ send: counted, keyPrefix: PREFIX, loadMonthlyTokens: async () => 0 });
    const subject = subjectOf("acct_settle_turn", limitsOf(1_000, 3, 1_000_000));
    await seedMonth(limiter, subject);
    const leases = [];
    for (let i = 0; i < 3; i++) {
      const decision = await limiter.acquire(subject);
      if (!decision.ok) throw new Error("expected a lease");
      leases.push(decision.lease);
    }
    calls.length = 0;
    // As answers that end together do: each one's end is a callback of its own, in one turn of the loop.
    await Promise.all(leases.map((lease) => new Promise<void>((resolve) => setTimeout(() => void lease.release()?.then(resolve), 0))));
    expect(calls).toEqual(["EVALSHA"]);
    expect(Number(await a.send("ZCARD", [`${PREFIX}limits:{acct_settle_turn}:conc`]))).toBe(0);
    await limiter.close();
  });

  test("a JSON answer's tokens and its free slot, reported in the same task, go in one call", async () => {
    const { calls, counted } = countingSend();
    const limiter = createRedisLimiter({ send: counted, keyPrefix: PREFIX, loadMonthlyTokens: async () => 0 });
    const subject = subjectOf("acct_settle", limitsOf(1_000, 1, 1_000_000));
    await seedMonth(limiter, subject);

    calls.length = 0;
    const decision = await limiter.acquire(subject);
    if (!decision.ok) throw new Error("expected a lease");
    // The pipeline reports a JSON answer (the usage observer adds its tokens), then frees the slot.
    limiter.addTokens("acct_settle", 75);
    await decision.lease.release();
    expect(calls).toEqual(["EVALSHA", "EVALSHA"]);
    const base = `${PREFIX}limits:{acct_settle}`;
    expect(await a.send("GET", [`${base}:tokens:${monthWindow(Date.now()).key}`])).toBe("75");
    expect(Number(await a.send("ZCARD", [`${base}:conc`]))).toBe(0);
    // The slot (the plan allows one) is free for the next request.
    const next = await limiter.acquire(subject);
    expect(next.ok).toBe(true);
    if (next.ok) await next.lease.release();
    await limiter.close();
  });
});
