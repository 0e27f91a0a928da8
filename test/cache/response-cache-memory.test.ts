import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import type { RawAnswer } from "../../src/cache/raw-answer.ts";
import { createResponseCache, type StoredEntry } from "../../src/cache/create-response-cache.ts";
import { createShardedLru } from "../../src/cache/create-sharded-lru.ts";
import type { CanonicalResponse } from "../../src/canonical/response.ts";
import { decodeRawAnswer } from "../../src/pipeline/decode-raw-answer.ts";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { settledHeapSize } from "../helpers/settled-heap-size.ts";

const BUDGET = 8 * 1024 * 1024;

let sim: SimServer;
/** One answer of each kind, as the simulated upstream sends it and as the gateway keeps it. */
let json: Uint8Array;
let stream: Uint8Array;
let decoded: CanonicalResponse;

async function ask(streamed: boolean): Promise<Uint8Array> {
  const response = await fetch(`${sim.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "sim-all", max_tokens: 256, messages: [{ role: "user", content: "Validate a JSON config with TypeBox, please." }], stream: streamed }),
  });
  return await response.bytes();
}

beforeAll(async () => {
  sim = await startSim({ port: 0 });
  json = await ask(false);
  stream = await ask(true);
  decoded = decodeRawAnswer({ kind: "json", api: "messages", bytes: [json] })!;
});

afterAll(() => sim?.stop());

/** Bytes as Bun's fetch hands them over: a buffer of their own, allocated by the runtime. */
const received = (bytes: Uint8Array): Promise<Uint8Array> => new Response(bytes).bytes();

/** Each kind of entry as the pipeline hands it over: a new answer every time. */
const ENTRIES: Record<string, () => Promise<CanonicalResponse | RawAnswer>> = {
  "a decoded answer (its canonical text)": async () => structuredClone(decoded),
  "a JSON answer as it was sent": async () => ({ kind: "json", api: "messages", bytes: [await received(json)] }),
  "a stream as it was sent": async () => ({ kind: "stream", api: "messages", bytes: [await received(stream)] }),
};

describe("the response cache's in-process budget", () => {
  test.each(Object.keys(ENTRIES))("counts what %s holds in the heap, within a tenth", async (kind) => {
    const lru = createShardedLru<StoredEntry>({ maxBytes: BUDGET, ttlMs: 600_000, shards: 16 });
    const cache = createResponseCache({ ttlMs: 600_000, decodeRaw: decodeRawAnswer, lru });
    const entry = ENTRIES[kind]!;
    const before = await settledHeapSize();
    // Filled to nine tenths: no entry evicted yet, so every byte counted is still held.
    for (let i = 0; lru.bytes < BUDGET * 0.9; i++) cache.put(`acct_${i % 97}:${i.toString(16).padStart(64, "0")}`, await entry(), {});
    Bun.gc(true);
    const held = heapStats().heapSize - before;
    expect(lru.size).toBeGreaterThan(1_000);
    expect(held / lru.bytes).toBeGreaterThan(0.85);
    expect(held / lru.bytes).toBeLessThan(1.1);
  });

  // Under new conversations nearly every answer is stored and few are asked for again, so L1 is
  // mostly raw answers: as the answer's own objects (an entry, its headers, a list of chunks and
  // their views) they were most of the objects each full collection marks.
  test.each(["a JSON answer as it was sent", "a stream as it was sent"])("keeps %s as one array beside its key", async (kind) => {
    const lru = createShardedLru<StoredEntry>({ maxBytes: 4 * BUDGET, ttlMs: 600_000, shards: 16 });
    const cache = createResponseCache({ ttlMs: 600_000, decodeRaw: decodeRawAnswer, lru });
    const keys = Array.from({ length: 1_000 }, (_, i) => `acct_${i % 97}:${i.toString(16).padStart(64, "0")}`);
    // The keys are flattened (and their pieces freed) by their first use as a map key: before the count.
    new Set(keys);
    await settledHeapSize();
    const before = heapStats().objectCount;
    for (const key of keys) cache.put(key, await ENTRIES[kind]!(), { "x-router-tier": "fast", "x-router-model": "sim-fast" });
    await settledHeapSize();
    expect(lru.size).toBe(keys.length);
    const perEntry = (heapStats().objectCount - before) / keys.length;
    // The array, and for one under 1,000 bytes its storage, a cell of its own in the heap: 1.02 for
    // the stream, 2.02 for the JSON answer. Kept as the answer's own objects it was 7.01 for each.
    expect(perEntry).toBeLessThan(2.5);
  });
});
