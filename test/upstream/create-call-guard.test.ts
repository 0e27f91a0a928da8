import { describe, expect, test } from "bun:test";
import { createCallGuard, type AbortCause } from "../../src/upstream/create-call-guard.ts";

/** A stand-in for the client's request whose signal records when it was first read. */
function fakeClient() {
  const controller = new AbortController();
  let reads = 0;
  const client = {
    get signal() {
      reads++;
      return controller.signal;
    },
  } as unknown as Request;
  return { client, leave: () => controller.abort(), reads: () => reads };
}

const causeOf = (watch: (onAbort: (cause: AbortCause) => void) => void) =>
  new Promise<AbortCause>((resolve) => watch(resolve));

describe("createCallGuard", () => {
  test("the deadline fires", async () => {
    const guard = createCallGuard({ resolutionMs: 5, graceMs: 1_000 });
    const { client } = fakeClient();
    expect(await causeOf((onAbort) => guard.watch(20, client, onAbort))).toBe("deadline");
  });

  test("a client that leaves during a long call is noticed once the grace has passed", async () => {
    const guard = createCallGuard({ resolutionMs: 5, graceMs: 10 });
    const { client, leave, reads } = fakeClient();
    const cause = causeOf((onAbort) => guard.watch(60_000, client, onAbort));
    leave();
    expect(await cause).toBe("client");
    expect(reads()).toBe(1);
  });

  test("a client that leaves after the watch is attached is noticed by its event", async () => {
    const guard = createCallGuard({ resolutionMs: 5, graceMs: 0 });
    const { client, leave, reads } = fakeClient();
    const cause = causeOf((onAbort) => guard.watch(60_000, client, onAbort));
    while (reads() === 0) await Bun.sleep(1);
    leave();
    expect(await cause).toBe("client");
  });

  test("a call released before the grace never touches the client's signal", async () => {
    const guard = createCallGuard({ resolutionMs: 5, graceMs: 40 });
    const { client, reads } = fakeClient();
    const fired: AbortCause[] = [];
    const release = guard.watch(60_000, client, (cause) => fired.push(cause));
    release();
    // A second, long call keeps the sweep running past the first one's grace.
    const other = fakeClient();
    await causeOf((onAbort) => guard.watch(80, other.client, onAbort));
    expect(reads()).toBe(0);
    expect(fired).toEqual([]);
  });
});
