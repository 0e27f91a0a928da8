import { describe, expect, test } from "bun:test";
import { join } from "node:path";
import { estimateTextTokens } from "../../src/canonical/estimate-text-tokens.ts";
import { createTokenizerThread } from "../../src/usage/create-tokenizer-thread.ts";
import { estimateTokenCount } from "../../src/usage/estimate-token-count.ts";

const ROOT = join(import.meta.dir, "..", "..");
const FAILING_WORKER = new URL("./fixtures/failing-tokenizer-worker.ts", import.meta.url).href;

/** A thread whose `onStop` calls are awaited one at a time. */
function watchedThread(options: { idleMs?: number; workerUrl?: string } = {}) {
  let stopped: () => void = () => {};
  let next = new Promise<void>((resolve) => (stopped = resolve));
  const thread = createTokenizerThread({
    ...options,
    onStop: () => {
      stopped();
      next = new Promise<void>((resolve) => (stopped = resolve));
    },
  });
  return { thread, stop: () => next };
}

describe("createTokenizerThread", () => {
  test("counts o200k tokens, summed over the texts; counts under way at once each get their own answer", async () => {
    const { thread } = watchedThread();
    expect(thread.running).toBe(false);
    expect(await thread.count(["Hello, Routelane"])).toBe(5);
    expect(thread.running).toBe(true);
    expect(await thread.count(["Hello, Routelane", "", "Hello, Routelane"])).toBe(10);
    const texts = Array.from({ length: 40 }, (_, i) => "word ".repeat(i));
    const alone: number[] = [];
    for (const text of texts) alone.push(await thread.count([text]));
    expect(await Promise.all(texts.map((text) => thread.count([text])))).toEqual(alone);
    expect(new Set(alone).size).toBe(texts.length);
  });

  test("stops once unused for its idle time, and a later count starts it again", async () => {
    const { thread, stop } = watchedThread({ idleMs: 20 });
    const stopped = stop();
    expect(await thread.count(["Hello, Routelane"])).toBe(5);
    await stopped;
    expect(thread.running).toBe(false);
    expect(await thread.count(["Hello, Routelane"])).toBe(5);
    expect(thread.running).toBe(true);
  });

  test("a thread that fails rejects the count under way, and stops", async () => {
    const { thread, stop } = watchedThread({ workerUrl: FAILING_WORKER });
    const stopped = stop();
    await expect(thread.count(["Hello"])).rejects.toThrow(/tokenizer thread/);
    await stopped;
    expect(thread.running).toBe(false);
  });
});

describe("estimateTokenCount", () => {
  test("when the tokenizer's thread fails, the quick count stands in", async () => {
    const { thread } = watchedThread({ workerUrl: FAILING_WORKER });
    const text = "Our Bun service reads a JSON config at start-up, and fails fast on a bad field.";
    const request = { model: "fast", messages: [{ role: "user" as const, content: text }] };
    expect(await estimateTokenCount(request, thread)).toBe(3 + estimateTextTokens(text));
  });

  test("leaves the tokenizer's tables off the serving thread's heap", () => {
    // A process of its own: this one may have loaded anything. Loaded in-process, the tables were
    // about 211,000 objects more on the heap, for every full collection to mark.
    const script = `const { heapStats } = await import("bun:jsc");
      const { estimateTokenCount } = await import(${JSON.stringify(join(ROOT, "src/usage/estimate-token-count.ts"))});
      const settled = () => { for (let i = 0; i < 3; i++) Bun.gc(true); return heapStats().objectCount; };
      const before = settled();
      const tokens = await estimateTokenCount({ model: "fast", messages: [{ role: "user", content: "Hello, Routelane" }] });
      const after = settled();
      const tokenizer = Object.keys(require.cache).filter((path) => path.includes("/gpt-tokenizer/")).length;
      console.log(JSON.stringify({ tokens, added: after - before, tokenizer }));
      process.exit(0);`;
    const run = Bun.spawnSync([process.execPath, "-e", script], { cwd: ROOT, stderr: "pipe" });
    expect(run.stderr.toString()).toBe("");
    const result: { tokens: number; added: number; tokenizer: number } = JSON.parse(run.stdout.toString());
    expect(result.tokens).toBe(8);
    expect(result.tokenizer).toBe(0);
    expect(result.added).toBeLessThan(20_000);
  });
});
