import { describe, expect, test } from "bun:test";
import type { NewUsageRecord } from "../../src/db/schema/usage.ts";
import { COPY_COLUMNS, encodeBinaryCopyRows } from "../../src/usage/encode-binary-copy-rows.ts";

const base: NewUsageRecord = {
  requestId: "req_1",
  accountId: "acct_1",
  keyId: "key_1",
  createdAt: new Date(Date.UTC(2026, 10, 22, 5, 6, 7, 890)),
  endpoint: "messages",
  tier: "normal",
  model: "sim-normal",
  effort: "medium",
  source: "rule",
  cacheHit: false,
  status: 200,
  latencyMs: 12.5,
  ttfbMs: 3.25,
  inputTokens: 100,
  outputTokens: 20,
  cacheReadTokens: 5,
  cacheWriteTokens: 6,
  reasoningTokens: 7,
  costUsd: 0.0015,
};

const SIGNATURE = Buffer.from("PGCOPY\n\xff\r\n\0", "latin1");

/** The fields of each row, as their raw bytes (null for a NULL), read the way Postgres reads the format. */
function readRows(bytes: Uint8Array): (Buffer | null)[][] {
  const buffer = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  expect(buffer.subarray(0, SIGNATURE.length).equals(SIGNATURE)).toBe(true);
  expect(buffer.readInt32BE(11)).toBe(0);
  expect(buffer.readInt32BE(15)).toBe(0);
  let at = 19;
  const rows: (Buffer | null)[][] = [];
  for (;;) {
    const count = buffer.readInt16BE(at);
    at += 2;
    if (count === -1) break;
    const fields: (Buffer | null)[] = [];
    for (let i = 0; i < count; i++) {
      const length = buffer.readInt32BE(at);
      at += 4;
      if (length === -1) {
        fields.push(null);
        continue;
      }
      fields.push(buffer.subarray(at, at + length));
      at += length;
    }
    rows.push(fields);
  }
  expect(at).toBe(buffer.length);
  return rows;
}

const fieldsOf = (row: Partial<NewUsageRecord>): (Buffer | null)[] => readRows(encodeBinaryCopyRows([{ ...base, ...row }]))[0]!;
const fieldOf = (row: Partial<NewUsageRecord>, name: (typeof COPY_COLUMNS)[number]): Buffer | null => fieldsOf(row)[COPY_COLUMNS.indexOf(name)]!;
const text = (field: Buffer | null): string | null => (field === null ? null : field.toString("utf8"));
const int8 = (field: Buffer | null): bigint => field!.readBigInt64BE(0);
const float8 = (field: Buffer | null): number | null => (field === null ? null : field.readDoubleBE(0));
const bool = (field: Buffer | null): boolean => {
  expect(field).toHaveLength(1);
  return field![0] === 1;
};

describe("encodeBinaryCopyRows", () => {
  test("a header, one tuple of every column per row in COPY_COLUMNS order, and the trailer", () => {
    const rows = readRows(encodeBinaryCopyRows([base, { ...base, requestId: "req_2" }]));
    expect(rows).toHaveLength(2);
    const [first, second] = rows;
    expect(first).toHaveLength(COPY_COLUMNS.length);
    expect(text(first![0]!)).toBe("req_1");
    expect(text(second![0]!)).toBe("req_2");
    const at = (name: (typeof COPY_COLUMNS)[number]) => first![COPY_COLUMNS.indexOf(name)]!;
    expect([text(at("account_id")), text(at("key_id")), text(at("endpoint")), text(at("tier")), text(at("model")), text(at("effort")), text(at("source"))]).toEqual([
      "acct_1",
      "key_1",
      "messages",
      "normal",
      "sim-normal",
      "medium",
      "rule",
    ]);
    expect(bool(at("cache_hit"))).toBe(false);
    expect(at("status").readInt32BE(0)).toBe(200);
    expect(at("status")).toHaveLength(4);
    expect([float8(at("latency_ms")), float8(at("ttfb_ms")), float8(at("cost_usd"))]).toEqual([12.5, 3.25, 0.0015]);
    expect(["input_tokens", "output_tokens", "cache_read_tokens", "cache_write_tokens", "reasoning_tokens"].map((name) => int8(at(name as (typeof COPY_COLUMNS)[number])))).toEqual([100n, 20n, 5n, 6n, 7n]);
    expect(bool(at("tokens_estimated"))).toBe(false);
  });

  test("no rows: the header and the trailer only", () => {
    expect(readRows(encodeBinaryCopyRows([]))).toEqual([]);
  });

  test("created_at is microseconds since 2000-01-01 UTC, before that date too", () => {
    expect(int8(fieldOf({}, "created_at"))).toBe(BigInt(base.createdAt.getTime() - Date.UTC(2000, 0, 1)) * 1000n);
    expect(int8(fieldOf({ createdAt: new Date(Date.UTC(1999, 11, 31, 23, 59, 59, 999)) }, "created_at"))).toBe(-1000n);
  });

  test("an invalid date fails the batch, as no timestamp can stand for it", () => {
    expect(() => encodeBinaryCopyRows([{ ...base, createdAt: new Date(Number.NaN) }])).toThrow(RangeError);
  });

  test("text is written as UTF-8 with its byte length, whatever it holds", () => {
    for (const value of ["a\tb\nc\\d \\N", "modèle ✓ 模型", "emoji 😀", ""]) {
      const field = fieldOf({ model: value }, "model");
      expect(text(field)).toBe(value);
      expect(field).toHaveLength(Buffer.byteLength(value));
    }
  });

  test("int8 columns hold counts past 2^32 and below 0 exactly", () => {
    expect(int8(fieldOf({ inputTokens: 2 ** 40 + 7 }, "input_tokens"))).toBe(2n ** 40n + 7n);
    expect(int8(fieldOf({ outputTokens: Number.MAX_SAFE_INTEGER }, "output_tokens"))).toBe(BigInt(Number.MAX_SAFE_INTEGER));
    expect(int8(fieldOf({ cacheReadTokens: -3 }, "cache_read_tokens"))).toBe(-3n);
  });

  test("an int8 count past 2^53 in magnitude is stored at the largest exact one, not wrapped", () => {
    expect(int8(fieldOf({ inputTokens: 1e20 }, "input_tokens"))).toBe(BigInt(Number.MAX_SAFE_INTEGER));
    expect(int8(fieldOf({ cacheWriteTokens: -1e20 }, "cache_write_tokens"))).toBe(-BigInt(Number.MAX_SAFE_INTEGER));
  });

  test.each([
    ["keyId", null, "key_id"],
    ["model", null, "model"],
    ["effort", undefined, "effort"],
    ["source", null, "source"],
  ] as const)("%s %p is NULL", (field, value, name) => {
    expect(fieldOf({ [field]: value }, name)).toBeNull();
  });

  test.each([
    ["cacheHit", true, "cache_hit", true],
    ["cacheHit", undefined, "cache_hit", false],
    ["tokensEstimated", true, "tokens_estimated", true],
    ["tokensEstimated", undefined, "tokens_estimated", false],
  ] as const)("%s %p: column %s is %p", (field, value, name, expected) => {
    expect(bool(fieldOf({ [field]: value }, name))).toBe(expected);
  });

  test.each([
    ["ttfbMs", null, "ttfb_ms", null],
    ["ttfbMs", Number.NaN, "ttfb_ms", null],
    ["costUsd", undefined, "cost_usd", 0],
    ["latencyMs", Number.NaN, "latency_ms", 0],
    ["latencyMs", Number.POSITIVE_INFINITY, "latency_ms", 0],
  ] as const)("%s %p: column %s is %p (the table's default, or null where it allows one)", (field, value, name, expected) => {
    expect(float8(fieldOf({ [field]: value }, name))).toBe(expected);
  });

  test.each([
    ["inputTokens", undefined, "input_tokens", 0n],
    ["reasoningTokens", Number.POSITIVE_INFINITY, "reasoning_tokens", 0n],
    ["outputTokens", 41.9, "output_tokens", 41n],
  ] as const)("%s %p: column %s is %p (the default when missing or not finite, else the integer part)", (field, value, name, expected) => {
    expect(int8(fieldOf({ [field]: value }, name))).toBe(expected);
  });

  test("status: an int4, its integer part; 0 when not finite", () => {
    expect(fieldOf({ status: 499 }, "status")!.readInt32BE(0)).toBe(499);
    expect(fieldOf({ status: 200.7 }, "status")!.readInt32BE(0)).toBe(200);
    expect(fieldOf({ status: Number.NaN }, "status")!.readInt32BE(0)).toBe(0);
  });

  test("the buffer never runs short: rows of long multi-byte text", () => {
    const long = "✓模".repeat(5_000);
    const rows = readRows(encodeBinaryCopyRows(Array.from({ length: 20 }, (_, i) => ({ ...base, requestId: `req_${i}`, model: long, source: "😀".repeat(1_000) }))));
    expect(rows).toHaveLength(20);
    expect(text(rows[19]![COPY_COLUMNS.indexOf("model")]!)).toBe(long);
  });
});
