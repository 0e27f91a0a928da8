import { describe, expect, test } from "bun:test";
import { getEventListeners } from "node:events";
import { waitFor } from "../../src/canonical/wait-for.ts";

describe("waitFor", () => {
  test("resolves false at once when the signal aborts", async () => {
    const controller = new AbortController();
    const started = performance.now();
    const pending = waitFor(5000, controller.signal);
    controller.abort();
    expect(await pending).toBe(false);
    expect(performance.now() - started).toBeLessThan(100);
    expect(await waitFor(5, new AbortController().signal)).toBe(true);
  });

  // The Smart+ worker and a waiting turn sleep on one signal again and again.
  test("leaves no listener on the signal once it has waited", async () => {
    const { signal } = new AbortController();
    for (let i = 0; i < 5; i++) expect(await waitFor(1, signal)).toBe(true);
    expect(getEventListeners(signal, "abort")).toHaveLength(0);
  });

  test("a signal already aborted answers false, whatever the wait", async () => {
    expect(await waitFor(0, AbortSignal.abort())).toBe(false);
    expect(await waitFor(0, new AbortController().signal)).toBe(true);
  });
});
