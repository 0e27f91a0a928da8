import { expect, test } from "bun:test";
import { buildResponseCacheKey, readCacheControl } from "../../src/cache/build-response-cache-key.ts";
import { createResponseCache } from "../../src/cache/create-response-cache.ts";
import { createShardedLru } from "../../src/cache/create-sharded-lru.ts";
import { createMemoryLimiter } from "../../src/limits/create-memory-limiter.ts";
import type { LimitDecision } from "../../src/limits/limiter.ts";

/** The budget for limits and cache together on the in-process backend, at p50. */
const BUDGET_P50_US = 30;

test("limits + cache lookup on a warm account cost well under 30 µs at p50", async () => {
  const limiter = createMemoryLimiter({ loadMonthlyTokens: async () => 0 });
  const subject = { accountId: "acct_hot", plan: "Starter" as const, limits: { requestsPerMinute: 1_000_000_000, concurrentRequests: 4, tokensPerMonth: 20_000_000 } };
  await limiter.acquire(subject);
  const cache = createResponseCache({ lru: createShardedLru<string>({ maxBytes: 64 << 20, ttlMs: 600_000 }), ttlMs: 600_000 });
  const body = { model: "normal", max_tokens: 1024, stream: true, messages: [{ role: "user", content: "Refactor this function, please. ".repeat(30) }] };
  const headers = new Headers({ "content-type": "application/json", "anthropic-version": "2023-06-01" });
  const rounds = 20_000;
  const samples = new Float64Array(rounds);
  for (let i = 0; i < rounds; i++) {
    const t0 = performance.now();
    const decision = limiter.acquire(subject) as LimitDecision;
    const control = readCacheControl(headers);
    const hit = control.lookup ? cache.get(buildResponseCacheKey(subject.accountId, "messages", body)) : null;
    if (decision.ok) decision.lease.release();
    samples[i] = performance.now() - t0;
    if (hit !== null || !decision.ok) throw new Error("unexpected hit or refusal");
  }
  samples.sort();
  const p50us = samples[rounds / 2]! * 1000;
  expect(p50us).toBeLessThan(BUDGET_P50_US);
});
