import { describe, expect, test } from "bun:test";
import type { StreamTokens } from "../../src/canonical/stream-tokens.ts";
import { createBeforeLastBytes } from "../../src/upstream/sse/create-before-last-bytes.ts";

const ENDED: StreamTokens = { sentTokens: () => 7 };

describe("createBeforeLastBytes", () => {
  test("a callback that returns nothing is called once, with the tokens, and nothing is to be awaited", () => {
    const calls: (StreamTokens | undefined)[] = [];
    const before = createBeforeLastBytes((ended) => {
      calls.push(ended);
    });
    expect(before(ENDED)).toBeUndefined();
    expect(before()).toBeUndefined();
    expect(calls).toEqual([ENDED]);
  });

  test("a callback's promise is handed back, to be awaited; a second call neither calls nor waits", async () => {
    const { promise, resolve } = Promise.withResolvers<void>();
    let calls = 0;
    const before = createBeforeLastBytes(() => {
      calls++;
      return promise;
    });
    const first = before();
    expect(first).toBeInstanceOf(Promise);
    let settled = false;
    void first?.then(() => (settled = true));
    await Promise.resolve();
    expect(settled).toBe(false);
    resolve();
    await first;
    expect(settled).toBe(true);
    expect(before()).toBeUndefined();
    expect(calls).toBe(1);
  });

  test("a callback's failure is swallowed: the stream ends all the same", async () => {
    const before = createBeforeLastBytes(() => Promise.reject(new Error("redis is down")));
    expect(await before()).toBeUndefined();
  });

  test("without a callback there is nothing to call or wait for", () => {
    expect(createBeforeLastBytes(undefined)(ENDED)).toBeUndefined();
  });
});
