/**
 * Deletes a map's oldest entries (the first in insertion order) until it holds `keep`, in one walk,
 * telling `dropped` of each. A bounded map trimmed by one entry at every insertion past its bound
 * walks, every time, over what earlier deletions left at its front (JSC compacts a map as it grows,
 * not as it shrinks), so each insertion costs more than the last: 1.5 million pins into a store of
 * 100,000 took 10 s per 250,000 (40 µs a pin). Trim below the bound instead, a fraction at once.
 */
export function dropOldest<K, V>(map: Map<K, V>, keep: number, dropped?: (key: K, value: V) => void): void {
  if (map.size <= keep) return;
  for (const [key, value] of map) {
    map.delete(key);
    dropped?.(key, value);
    if (map.size <= keep) return;
  }
}

/** What a map bounded to `bound` entries is trimmed to once it passes it: seven eighths (the bound itself below 8). */
export const trimmedSize = (bound: number): number => bound - Math.floor(bound / 8);
