import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { heapStats } from "bun:jsc";
import type { RawAnswer } from "../../src/cache/raw-answer.ts";
import { createResponseCache } from "../../src/cache/create-response-cache.ts";
import { createByteLru } from "../../src/cache/create-byte-lru.ts";
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
  // Three budgets' worth of new answers, as under new conversations: the rings wrap, and what they
  // drop is not memory left for the collector.
  test.each(Object.keys(ENTRIES))("holds its budget and its keys for %s, however many pass through", async (kind) => {
    const lru = createByteLru({ maxBytes: BUDGET, ttlMs: 600_000, shards: 16 });
    const cache = createResponseCache({ ttlMs: 600_000, decodeRaw: decodeRawAnswer, lru });
    const entry = ENTRIES[kind]!;
    cache.put("acct_0:first", await entry(), {});
    const size = lru.bytes;
    for (let i = 0; i < (3 * BUDGET) / size; i++) cache.put(`acct_${i % 97}:${i.toString(16).padStart(64, "0")}`, await entry(), {});
    const entries = lru.size;
    // The rings are used, up to what a wrap leaves at a ring's end.
    expect(lru.bytes).toBeLessThanOrEqual(BUDGET);
    expect(lru.bytes / BUDGET).toBeGreaterThan(0.9);
    // What the L1 holds, as what emptying it gives back: what earlier tests of the process let go
    // is gone by then too, and does not count.
    const full = await settledHeapSize();
    lru.clear();
    const held = full - (await settledHeapSize());
    expect(entries).toBeGreaterThan(1_000);
    // Beyond the rings: each entry's key (about 70 characters here), its map entry and its log record
    // (242-280 bytes; the slot tables, kept by clear(), are not in it).
    const perEntry = (held - BUDGET) / entries;
    expect(perEntry).toBeGreaterThan(0);
    expect(perEntry).toBeLessThan(400);
  });

  // Held as the answer's own objects (an entry, its headers, the answer, a list of chunks and their
  // views), a raw answer was seven objects, and a full L1 most of the objects each full collection
  // marked; as an array of its own, one or two. In a ring, none: the slot is numbers in tables.
  test.each(Object.keys(ENTRIES))("keeps %s as no object beside its key", async (kind) => {
    const lru = createByteLru({ maxBytes: 4 * BUDGET, ttlMs: 600_000, shards: 16 });
    const cache = createResponseCache({ ttlMs: 600_000, decodeRaw: decodeRawAnswer, lru });
    const keys = Array.from({ length: 1_000 }, (_, i) => `acct_${i % 97}:${i.toString(16).padStart(64, "0")}`);
    // The keys are flattened (and their pieces freed) by their first use as a map key: before the count.
    new Set(keys);
    cache.put("acct_0:first", await ENTRIES[kind]!(), {});
    await settledHeapSize();
    const before = heapStats().objectCount;
    for (const key of keys) cache.put(key, await ENTRIES[kind]!(), { "x-router-tier": "fast", "x-router-model": "sim-fast" });
    await settledHeapSize();
    expect(lru.size).toBe(keys.length + 1);
    const perEntry = (heapStats().objectCount - before) / keys.length;
    expect(perEntry).toBeLessThan(0.1);
  });
});
