import { describe, expect, test } from "bun:test";
import { createCircuitBreaker, type BreakerState } from "../../src/routing/circuit-breaker.ts";

function setup() {
  let now = 0;
  const changes: string[] = [];
  const breaker = createCircuitBreaker({
    failureThreshold: 3,
    coolDownMs: 1_000,
    now: () => now,
    onChange: (model, from: BreakerState, to: BreakerState) => changes.push(`${model}:${from}->${to}`),
  });
  return { breaker, changes, advance: (ms: number) => (now += ms) };
}

describe("circuit breaker", () => {
  test("opens after N consecutive failures; a success in between resets the count", () => {
    const { breaker } = setup();
    breaker.recordFailure("m");
    breaker.recordFailure("m");
    breaker.recordSuccess("m");
    breaker.recordFailure("m");
    breaker.recordFailure("m");
    expect(breaker.state("m")).toBe("closed");
    expect(breaker.tryAcquire("m")).toBe(true);
    breaker.recordFailure("m");
    expect(breaker.state("m")).toBe("open");
    expect([breaker.tryAcquire("m"), breaker.isAvailable("m")]).toEqual([false, false]);
    expect(breaker.state("other")).toBe("closed");
  });

  test("half-open after the cool-down lets exactly one probe through; its success closes", () => {
    const { breaker, changes, advance } = setup();
    for (let i = 0; i < 3; i++) breaker.recordFailure("m");
    advance(999);
    expect(breaker.tryAcquire("m")).toBe(false);
    advance(1);
    expect(breaker.isAvailable("m")).toBe(true);
    expect(breaker.state("m")).toBe("half-open");
    expect(breaker.tryAcquire("m")).toBe(true);
    expect(breaker.tryAcquire("m")).toBe(false); // the probe is in flight
    expect(breaker.isAvailable("m")).toBe(false);
    breaker.recordSuccess("m");
    expect(breaker.state("m")).toBe("closed");
    expect(changes).toEqual(["m:closed->open", "m:open->half-open", "m:half-open->closed"]);
  });

  test("a failed probe opens the breaker again for another cool-down", () => {
    const { breaker, advance } = setup();
    for (let i = 0; i < 3; i++) breaker.recordFailure("m");
    advance(1_000);
    expect(breaker.tryAcquire("m")).toBe(true);
    breaker.recordFailure("m");
    expect(breaker.state("m")).toBe("open");
    advance(500);
    expect(breaker.tryAcquire("m")).toBe(false);
    advance(500);
    expect(breaker.tryAcquire("m")).toBe(true);
  });

  test("the snapshot gives state, failures and retry time per model", () => {
    const { breaker, advance } = setup();
    advance(10);
    breaker.recordFailure("a");
    for (let i = 0; i < 3; i++) breaker.recordFailure("b");
    expect(breaker.snapshot()).toEqual({
      a: { state: "closed", consecutiveFailures: 1, retryAt: null },
      b: { state: "open", consecutiveFailures: 3, retryAt: 1_010 },
    });
  });
});

describe("circuit breaker: a lost probe", () => {
  test("a probe that never reports back frees up after one cool-down", () => {
    const { breaker, advance } = setup();
    for (let i = 0; i < 3; i++) breaker.recordFailure("m");
    advance(1_000);
    expect(breaker.tryAcquire("m")).toBe(true);
    advance(999);
    expect(breaker.tryAcquire("m")).toBe(false);
    advance(1);
    expect(breaker.tryAcquire("m")).toBe(true);
  });
});
