import { describe, expect, test } from "bun:test";
import { PLAN_LIMITS, type Plan, type PlanLimits } from "../../src/canonical/plans.ts";
import { createMemoryLimiter } from "../../src/limits/create-memory-limiter.ts";
import type { LimitDecision, LimitSubject } from "../../src/limits/limiter.ts";

const subject = (plan: Plan, accountId = "acct_a", limits: PlanLimits = PLAN_LIMITS[plan]): LimitSubject => ({ accountId, plan, limits });
const START = Date.UTC(2026, 10, 15, 12, 0, 0);

function clock(start = START) {
  let t = start;
  return { now: () => t, advance: (ms: number) => void (t += ms), set: (ms: number) => void (t = ms) };
}

async function take(decision: LimitDecision | Promise<LimitDecision>): Promise<LimitDecision> {
  return decision instanceof Promise ? await decision : decision;
}

function refused(decision: LimitDecision) {
  if (decision.ok) throw new Error("expected a refusal");
  return decision.error;
}

describe("memory limiter: requests per minute", () => {
  test("Starter: the 61st request within a minute is refused with the spec's message and headers", async () => {
    const c = clock();
    const limiter = createMemoryLimiter({ now: c.now });
    for (let i = 0; i < 60; i++) {
      const d = await take(limiter.acquire(subject("Starter")));
      expect(d.ok).toBe(true);
      if (d.ok) {
        expect(d.lease.headers["x-ratelimit-remaining-requests"]).toBe(String(59 - i));
        d.lease.release();
      }
      c.advance(500);
    }
    const error = refused(await take(limiter.acquire(subject("Starter"))));
    expect(error.status).toBe(429);
    expect(error.type).toBe("rate_limit_error");
    expect(error.message).toBe("rate limit of 60 requests per minute for plan Starter exceeded");
    // The first request was at START; 30 s have passed, so a slot frees in 30 s.
    expect(error.headers["retry-after"]).toBe("30");
    expect(error.headers["retry-after-ms"]).toBe("30000");
    expect(error.headers["x-ratelimit-limit-requests"]).toBe("60");
    expect(error.headers["x-ratelimit-remaining-requests"]).toBe("0");
    expect(error.headers["x-ratelimit-reset-requests"]).toBe("30s");
  });

  test("the window slides: a slot frees exactly when the oldest request is a minute old", async () => {
    const c = clock();
    const limiter = createMemoryLimiter({ now: c.now });
    const limits = { requestsPerMinute: 3, concurrentRequests: null, tokensPerMonth: null };
    for (let i = 0; i < 3; i++) {
      expect((await take(limiter.acquire(subject("Enterprise", "e", limits)))).ok).toBe(true);
      c.advance(10_000);
    }
    expect((await take(limiter.acquire(subject("Enterprise", "e", limits)))).ok).toBe(false);
    c.set(START + 59_999);
    expect((await take(limiter.acquire(subject("Enterprise", "e", limits)))).ok).toBe(false);
    c.set(START + 60_000);
    const d = await take(limiter.acquire(subject("Enterprise", "e", limits)));
    expect(d.ok).toBe(true);
    if (d.ok) expect(d.lease.headers["x-ratelimit-remaining-requests"]).toBe("0");
    expect((await take(limiter.acquire(subject("Enterprise", "e", limits)))).ok).toBe(false);
  });

  test("a changed limit (Enterprise override) applies at once, keeping the recent requests", async () => {
    const c = clock();
    const limiter = createMemoryLimiter({ now: c.now });
    const small = { requestsPerMinute: 2, concurrentRequests: null, tokensPerMonth: null };
    const large = { ...small, requestsPerMinute: 4 };
    expect((await take(limiter.acquire(subject("Enterprise", "e", small)))).ok).toBe(true);
    expect((await take(limiter.acquire(subject("Enterprise", "e", small)))).ok).toBe(true);
    expect((await take(limiter.acquire(subject("Enterprise", "e", small)))).ok).toBe(false);
    expect((await take(limiter.acquire(subject("Enterprise", "e", large)))).ok).toBe(true);
    expect((await take(limiter.acquire(subject("Enterprise", "e", large)))).ok).toBe(true);
    expect((await take(limiter.acquire(subject("Enterprise", "e", large)))).ok).toBe(false);
    expect((await take(limiter.acquire(subject("Enterprise", "e", small)))).ok).toBe(false);
  });

  test("accounts are counted apart; uncapped Enterprise sends no x-ratelimit headers", async () => {
    const limiter = createMemoryLimiter({ now: clock().now });
    for (let i = 0; i < 60; i++) await take(limiter.acquire(subject("Starter", "one")));
    expect((await take(limiter.acquire(subject("Starter", "one")))).ok).toBe(false);
    expect((await take(limiter.acquire(subject("Starter", "two")))).ok).toBe(true);
    const e = await take(limiter.acquire(subject("Enterprise", "ent")));
    expect(e.ok).toBe(true);
    if (e.ok) expect(e.lease.headers).toEqual({});
  });
});

describe("memory limiter: concurrency", () => {
  test("Starter: the 5th concurrent request is refused; a released slot is reusable; release is idempotent", async () => {
    const limiter = createMemoryLimiter({ now: clock().now });
    const leases = [];
    for (let i = 0; i < 4; i++) {
      const d = await take(limiter.acquire(subject("Starter")));
      if (!d.ok) throw d.error;
      leases.push(d.lease);
    }
    const error = refused(await take(limiter.acquire(subject("Starter"))));
    expect(error.message).toBe("concurrency limit of 4 concurrent requests for plan Starter exceeded");
    expect(error.headers["retry-after"]).toBe("1");
    expect(error.headers["x-ratelimit-remaining-requests"]).toBe("56");
    leases[0]!.release();
    leases[0]!.release();
    expect(limiter.activeOf("acct_a")).toBe(3);
    const again = await take(limiter.acquire(subject("Starter")));
    expect(again.ok).toBe(true);
    expect((await take(limiter.acquire(subject("Starter")))).ok).toBe(false);
  });

  test("a refused request holds no slot and uses no rpm", async () => {
    const limiter = createMemoryLimiter({ now: clock().now });
    const limits = { requestsPerMinute: 10, concurrentRequests: 1, tokensPerMonth: null };
    const first = await take(limiter.acquire(subject("Enterprise", "e", limits)));
    for (let i = 0; i < 5; i++) expect((await take(limiter.acquire(subject("Enterprise", "e", limits)))).ok).toBe(false);
    expect(limiter.activeOf("e")).toBe(1);
    if (first.ok) first.lease.release();
    const next = await take(limiter.acquire(subject("Enterprise", "e", limits)));
    expect(next.ok && next.lease.headers["x-ratelimit-remaining-requests"]).toBe("8");
  });
});

describe("memory limiter: monthly tokens", () => {
  test("the cap is reached from recorded usage loaded once per account and month", async () => {
    const calls: Array<[string, string]> = [];
    const limiter = createMemoryLimiter({
      now: clock().now,
      loadMonthlyTokens: async (accountId, monthStart) => {
        calls.push([accountId, monthStart.toISOString()]);
        return accountId === "full" ? 20_000_000 : 19_999_990;
      },
    });
    const error = refused(await take(limiter.acquire(subject("Starter", "full"))));
    expect(error.message).toBe("token limit of 20000000 tokens per month for plan Starter exceeded");
    expect(error.headers["x-should-retry"]).toBe("false");
    // Till 2026-12-01T00:00Z from 2026-11-15T12:00Z.
    expect(Number(error.headers["retry-after"])).toBe(15.5 * 24 * 3600);
    const d = await take(limiter.acquire(subject("Starter", "near")));
    expect(d.ok).toBe(true);
    if (d.ok) d.lease.release();
    limiter.addTokens("near", 10);
    expect(refused(await take(limiter.acquire(subject("Starter", "near")))).status).toBe(429);
    expect(calls).toEqual([
      ["full", "2026-11-01T00:00:00.000Z"],
      ["near", "2026-11-01T00:00:00.000Z"],
    ]);
  });

  test("a new month starts from that month's recorded usage", async () => {
    const c = clock(Date.UTC(2026, 10, 30, 23, 59, 59));
    const limiter = createMemoryLimiter({ now: c.now, loadMonthlyTokens: async (_id, start) => (start.getUTCMonth() === 10 ? 20_000_000 : 0) });
    expect((await take(limiter.acquire(subject("Starter")))).ok).toBe(false);
    c.set(Date.UTC(2026, 11, 1, 0, 0, 0));
    expect((await take(limiter.acquire(subject("Starter")))).ok).toBe(true);
  });

  test("a failed load fails open and is retried later", async () => {
    const c = clock();
    let fail = true;
    const lines: string[] = [];
    const limiter = createMemoryLimiter({
      now: c.now,
      loadRetryMs: 1000,
      log: (line) => lines.push(line),
      loadMonthlyTokens: async () => {
        if (fail) throw new Error("database down");
        return 20_000_000;
      },
    });
    expect((await take(limiter.acquire(subject("Starter")))).ok).toBe(true);
    expect(lines.length).toBe(1);
    fail = false;
    expect((await take(limiter.acquire(subject("Starter")))).ok).toBe(true);
    c.advance(1000);
    expect((await take(limiter.acquire(subject("Starter")))).ok).toBe(false);
  });

  test("no cap (Pro): nothing is loaded", async () => {
    let loads = 0;
    const limiter = createMemoryLimiter({ now: clock().now, loadMonthlyTokens: async () => {
        loads++;
        return 1e12;
      },
    });
    expect((await take(limiter.acquire(subject("Pro")))).ok).toBe(true);
    expect(loads).toBe(0);
  });

  test("after the first load, acquire answers synchronously (the hot path)", async () => {
    const limiter = createMemoryLimiter({ now: clock().now, loadMonthlyTokens: async () => 0 });
    await take(limiter.acquire(subject("Starter")));
    expect(limiter.acquire(subject("Starter")) instanceof Promise).toBe(false);
  });
});
