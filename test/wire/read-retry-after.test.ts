import { expect, test } from "bun:test";
import { readRetryAfter } from "../../src/wire/read-retry-after.ts";

test("retry-after-ms first, then retry-after in seconds or as an HTTP date; nonsense is no wait", () => {
  const now = Date.UTC(2026, 0, 1, 12, 0, 0);
  const read = (headers: Record<string, string>) => readRetryAfter(new Headers(headers), now);
  expect(read({ "retry-after-ms": "250.5", "retry-after": "9" })).toBe(250.5);
  expect(read({ "retry-after": "2" })).toBe(2000);
  expect(read({ "retry-after": "0" })).toBe(0);
  expect(read({ "retry-after": "Thu, 01 Jan 2026 12:00:30 GMT" })).toBe(30_000);
  expect(read({ "retry-after": "Thu, 01 Jan 2026 11:00:00 GMT" })).toBe(0);
  expect(read({ "retry-after-ms": "soon", "retry-after": "3" })).toBe(3000);
  expect(read({ "retry-after": "-1" })).toBeUndefined();
  expect(read({ "retry-after": "later" })).toBeUndefined();
  expect(read({ "retry-after": "1e400" })).toBeUndefined();
  expect(read({})).toBeUndefined();
  expect(readRetryAfter(null)).toBeUndefined();
});
