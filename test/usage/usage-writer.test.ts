import { describe, expect, test } from "bun:test";
import type { NewUsageRecord } from "../../src/db/schema/usage.ts";
import type { UsageStore } from "../../src/usage/create-usage-store.ts";
import { createUsageWriter } from "../../src/usage/create-usage-writer.ts";

const row = (i: number): NewUsageRecord => ({
  requestId: `req_${i}`,
  accountId: "acct_a",
  createdAt: new Date(0),
  endpoint: "messages",
  tier: "normal",
  status: 200,
  latencyMs: 1,
  inputTokens: i,
});

/** A store keyed by request id, like the unique column; it can fail before or after "landing" a batch. */
function fakeStore() {
  const rows = new Map<string, NewUsageRecord>();
  let mode: "up" | "down" | "lands-then-fails" = "up";
  let calls = 0;
  let resolveOnInsert: (() => void) | null = null;
  const store: UsageStore = {
    async insert(batch) {
      calls++;
      resolveOnInsert?.();
      if (mode === "down") throw new Error("connection refused");
      for (const r of batch) if (!rows.has(r.requestId)) rows.set(r.requestId, r);
      if (mode === "lands-then-fails") {
        mode = "up";
        throw new Error("connection reset after commit");
      }
    },
  };
  return {
    store,
    rows,
    set: (m: typeof mode) => void (mode = m),
    calls: () => calls,
    nextInsert: () => new Promise<void>((resolve) => (resolveOnInsert = resolve)),
  };
}

describe("usage writer", () => {
  test("a full batch is written at once, a partial one after the interval", async () => {
    const fake = fakeStore();
    const writer = createUsageWriter({ store: fake.store, batchRows: 3, flushIntervalMs: 20, maxBufferRows: 100, log: () => {} });
    const inserted = fake.nextInsert();
    for (let i = 0; i < 3; i++) writer.record(row(i));
    await inserted;
    expect(fake.rows.size).toBe(3);
    const later = fake.nextInsert();
    writer.record(row(3));
    expect(fake.rows.size).toBe(3);
    await later;
    await Bun.sleep(0);
    expect(fake.rows.size).toBe(4);
    expect(writer.backlog).toBe(0);
    await writer.close();
  });

  test("rows that arrive while a full batch is written wait for the next full batch or the interval", async () => {
    const sizes: number[] = [];
    let finishInsert!: () => void;
    let started!: () => void;
    let insertStarted = new Promise<void>((resolve) => (started = resolve));
    const store: UsageStore = {
      insert(batch) {
        sizes.push(batch.length);
        started();
        return new Promise<void>((resolve) => (finishInsert = resolve));
      },
    };
    // The interval is long: only a full batch or the flush may write here.
    const writer = createUsageWriter({ store, batchRows: 4, flushIntervalMs: 60_000, maxBufferRows: 100, log: () => {} });
    for (let i = 0; i < 4; i++) writer.record(row(i));
    await insertStarted;
    for (let i = 4; i < 6; i++) writer.record(row(i));
    insertStarted = new Promise<void>((resolve) => (started = resolve));
    finishInsert();
    await Bun.sleep(0);
    expect(sizes).toEqual([4]);
    expect(writer.backlog).toBe(2);
    for (let i = 6; i < 8; i++) writer.record(row(i));
    await insertStarted;
    expect(sizes).toEqual([4, 4]);
    insertStarted = new Promise<void>((resolve) => (started = resolve));
    finishInsert();
    writer.record(row(8));
    const closed = writer.close();
    await insertStarted;
    await Bun.sleep(0);
    finishInsert();
    await closed;
    expect(sizes).toEqual([4, 4, 1]);
    expect(writer.backlog).toBe(0);
  });

  test("a database that fails and then recovers loses nothing and doubles nothing", async () => {
    const fake = fakeStore();
    const logs: string[] = [];
    const writer = createUsageWriter({ store: fake.store, batchRows: 10, flushIntervalMs: 5, maxBufferRows: 10_000, retryMinMs: 5, retryMaxMs: 20, log: (l) => logs.push(l) });
    for (let i = 0; i < 25; i++) writer.record(row(i));
    fake.set("down");
    for (let i = 25; i < 400; i++) writer.record(row(i));
    await Bun.sleep(60);
    expect(writer.backlog).toBeGreaterThan(0);
    // The first insert after the outage lands but reports failure: its retry must not double count.
    fake.set("lands-then-fails");
    for (let i = 400; i < 500; i++) writer.record(row(i));
    await writer.flush(5_000);
    expect(writer.backlog).toBe(0);
    expect(fake.rows.size).toBe(500);
    expect([...fake.rows.keys()].sort()).toEqual(Array.from({ length: 500 }, (_, i) => `req_${i}`).sort());
    expect(writer.dropped).toBe(0);
    expect(logs.some((l) => l.includes("retrying with backoff"))).toBe(true);
    expect(logs.some((l) => l.includes("recovered"))).toBe(true);
    await writer.close();
  });

  test("the buffer is bounded: past it rows are dropped and counted", async () => {
    const fake = fakeStore();
    fake.set("down");
    const writer = createUsageWriter({ store: fake.store, batchRows: 10, flushIntervalMs: 1000, maxBufferRows: 50, retryMinMs: 10, log: () => {} });
    for (let i = 0; i < 60; i++) writer.record(row(i));
    expect(writer.backlog).toBe(50);
    expect(writer.dropped).toBe(10);
    fake.set("up");
    await writer.close(5_000);
    expect(fake.rows.size).toBe(50);
  });

  test("flush gives up at its deadline while the database stays down, keeping the rows", async () => {
    const fake = fakeStore();
    fake.set("down");
    const writer = createUsageWriter({ store: fake.store, batchRows: 10, flushIntervalMs: 1000, maxBufferRows: 50, retryMinMs: 10, retryMaxMs: 10, log: () => {} });
    writer.record(row(1));
    await writer.flush(100);
    expect(writer.backlog).toBe(1);
    expect(fake.calls()).toBeGreaterThan(1);
  });
});

test("a flush timer that fires on an empty buffer does not stall later writes", async () => {
  const fake = fakeStore();
  const writer = createUsageWriter({ store: fake.store, batchRows: 2, flushIntervalMs: 5, maxBufferRows: 100, log: () => {} });
  writer.record(row(1));
  writer.record(row(2)); // a full batch: written at once, leaving the 5 ms timer to fire on nothing
  await Bun.sleep(20);
  writer.record(row(3));
  writer.record(row(4));
  await writer.close(1000);
  expect(fake.rows.size).toBe(4);
  expect(writer.backlog).toBe(0);
});
