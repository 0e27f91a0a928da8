/** Longest wait an upstream may ask for that is taken as meant (a year; past it, a broken header). */
const MAX_MS = 365 * 24 * 3600 * 1000;

/**
 * How long an upstream asked to wait before the next call, ms: `retry-after-ms` (OpenAI) first,
 * then `retry-after` as seconds or an HTTP date. Undefined when it said nothing usable.
 */
export function readRetryAfter(headers: Headers | null, now: number = Date.now()): number | undefined {
  if (!headers) return undefined;
  const ms = headers.get("retry-after-ms");
  if (ms !== null && ms.trim() !== "") {
    const value = Number(ms);
    if (Number.isFinite(value) && value >= 0 && value <= MAX_MS) return value;
  }
  const after = headers.get("retry-after");
  if (after === null || after.trim() === "") return undefined;
  const seconds = Number(after);
  if (Number.isFinite(seconds)) return seconds >= 0 && seconds * 1000 <= MAX_MS ? seconds * 1000 : undefined;
  const date = Date.parse(after);
  return Number.isNaN(date) ? undefined : Math.min(Math.max(0, date - now), MAX_MS);
}
