import { describe, expect, test } from "bun:test";
import { startDecisionCleanup } from "../../src/routing/start-decision-cleanup.ts";

describe("the decision cleanup", () => {
  test("deletes the expired decisions every interval, goes on after a failed round, and stops when told", async () => {
    const errors: unknown[] = [];
    const cutoffs: Date[] = [];
    let third: () => void = () => {};
    const thirdRound = new Promise<void>((resolve) => (third = resolve));
    const store = {
      deleteExpired: async (now: Date) => {
        cutoffs.push(now);
        if (cutoffs.length === 3) third();
        if (cutoffs.length === 1) throw new Error("database down");
        return 0;
      },
    };
    const cleanup = startDecisionCleanup(store, 5, (err) => errors.push(err));
    expect(cleanup.intervalMs).toBe(5);
    await thirdRound;
    await cleanup.stop();
    const rounds = cutoffs.length;
    expect(errors.map(String)).toEqual(["Error: database down"]);
    // Each round deletes what expired before it ran.
    expect(cutoffs[2]!.getTime()).toBeGreaterThan(cutoffs[0]!.getTime());
    await Bun.sleep(30); // nothing to await for "no more rounds": a short quiet period
    expect(cutoffs.length).toBe(rounds);
  });

  test("stopping waits for the round under way, and a slow round is not joined by another", async () => {
    let release: () => void = () => {};
    let started: () => void = () => {};
    const firstStarted = new Promise<void>((resolve) => (started = resolve));
    let rounds = 0;
    const store = {
      deleteExpired: (_now: Date) => {
        rounds++;
        started();
        return new Promise<number>((resolve) => (release = () => resolve(1)));
      },
    };
    const cleanup = startDecisionCleanup(store, 5);
    await firstStarted;
    await Bun.sleep(30); // six intervals pass while the first round is under way
    expect(rounds).toBe(1);
    let stopped = false;
    const stopping = cleanup.stop().then(() => (stopped = true));
    await Bun.sleep(0);
    expect(stopped).toBe(false);
    release();
    await stopping;
    expect(rounds).toBe(1);
  });
});
