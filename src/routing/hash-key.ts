/** The two hashes of a key, written big-endian so their hex reads as each one's base-16 digits. */
const words = new DataView(new ArrayBuffer(16));
const hexOf = Buffer.from(words.buffer);

/**
 * A 128-bit hex key from parts, joined with a separator no text part can fake. Two wyhash passes
 * with different seeds: fast enough for a 50 µs warm path over long system prompts, stable across
 * processes (keys are shared through Postgres and Redis), and wide enough that collisions do not matter.
 * The hex is each hash zero-padded to 16 digits (`toString(16).padStart(16, "0")`, the stored keys'
 * spelling), written from one buffer: about a third of the cost of those four calls.
 */
export function hashKey(parts: readonly string[]): string {
  const joined = parts.map((p) => `${p.length}:${p}`).join("\u0000");
  words.setBigUint64(0, Bun.hash.wyhash(joined, 0x5eedn));
  words.setBigUint64(8, Bun.hash.wyhash(joined, 0xc0ffeen));
  return hexOf.toString("hex");
}
