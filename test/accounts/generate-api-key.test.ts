import { describe, expect, test } from "bun:test";
import { encodeBase62, generateApiKey, generateId, hashApiKey } from "../../src/accounts/generate-api-key.ts";

describe("generateApiKey", () => {
  test("is rl_ + 43 base62 characters, with its SHA-256 and an 8-character display prefix", () => {
    const { key, hash, prefix } = generateApiKey();
    expect(key.length).toBe(46);
    expect(key).toMatch(/^rl_[0-9A-Za-z]{43}$/);
    expect(hash).toBe(new Bun.CryptoHasher("sha256").update(key).digest("hex"));
    expect(hash).toMatch(/^[0-9a-f]{64}$/);
    expect(prefix).toBe(key.slice(0, 8));
    expect(prefix.startsWith("rl_")).toBe(true);
  });

  test("2000 keys are all distinct and use the whole alphabet", () => {
    const keys = Array.from({ length: 2000 }, () => generateApiKey().key);
    expect(new Set(keys).size).toBe(2000);
    const seen = new Set(keys.flatMap((k) => [...k.slice(3)]));
    expect(seen.size).toBe(62);
  });
});

describe("encodeBase62", () => {
  test.each([
    [new Uint8Array(32), "0".repeat(43)],
    [Uint8Array.of(61), "z"],
    [Uint8Array.of(62), "10"],
    [Uint8Array.of(1, 0), "48"],
  ])("encodes %p", (bytes, expected) => {
    expect(encodeBase62(bytes, expected.length)).toBe(expected);
  });

  test("32 bytes of 0xff fit in 43 digits", () => {
    const max = encodeBase62(new Uint8Array(32).fill(255), 43);
    expect(max.length).toBe(43);
    expect(max.startsWith("0")).toBe(false);
    expect(() => encodeBase62(new Uint8Array(32).fill(255), 42)).toThrow(RangeError);
  });
});

describe("hashApiKey", () => {
  test("is lowercase SHA-256 hex (FIPS 180-2 vector)", () => {
    expect(hashApiKey("abc")).toBe("ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
  });
});

describe("generateId", () => {
  test("prefix + 16 base62 characters, distinct", () => {
    const ids = Array.from({ length: 500 }, () => generateId("acct_"));
    for (const id of ids) expect(id).toMatch(/^acct_[0-9A-Za-z]{16}$/);
    expect(new Set(ids).size).toBe(500);
    expect(generateId("key_")).toMatch(/^key_[0-9A-Za-z]{16}$/);
  });
});
