import { expect, test } from "bun:test";
import { hashKey } from "../../src/routing/hash-key.ts";

// Pins (Redis) and routing decisions (Postgres) are stored under these keys: an instance that spelled
// them another way would find none of what the instances before it stored. Each key below was made
// by the spelling before it was written from one buffer (each hash's `toString(16).padStart(16, "0")`),
// two of them with leading zeros in one hash or the other.
test.each([
  [["conv", "acct_1", "normal", "12:You are terse", "5:hello", ""], "345bf9e391edab3f59c19d85f490d19f"],
  [["dec", "fp", "smart", "0101", "96", "explain why"], "c645536dec1b5e2c1888083075490fb2"],
  [[""], "07605325017085b16b40c0e917893359"],
  [["é😀\u0000x"], "2bcd72b37cb2d621ef5ec629670a81b1"],
  [["z", "8190"], "00021ce74f4b8567722172a7ea643fcf"],
  [["y", "1270"], "af990731ae2dbf95000ac52b3de657d0"],
])("%p keeps the key it was stored under", (parts, key) => {
  expect(hashKey(parts)).toBe(key);
});

test("every key is the two hashes' digits, each zero-padded to 16", () => {
  for (let i = 0; i < 2_000; i++) {
    const parts = ["k", String(i), "x".repeat(i % 7)];
    const joined = parts.map((p) => `${p.length}:${p}`).join("\u0000");
    const spelled = Bun.hash.wyhash(joined, 0x5eedn).toString(16).padStart(16, "0") + Bun.hash.wyhash(joined, 0xc0ffeen).toString(16).padStart(16, "0");
    expect(hashKey(parts)).toBe(spelled);
  }
});
