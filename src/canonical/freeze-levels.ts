/**
 * Freezes `value` and the objects within it down to `levels` levels: what is shared between
 * requests (a parsed message, its decoded parts) cannot be changed by one of them for the next.
 * Deeper levels are left as they are, which keeps the cost to what the pipeline could touch.
 */
export function freezeLevels(value: object, levels: number): void {
  Object.freeze(value);
  if (levels <= 1) return;
  if (Array.isArray(value)) {
    for (const item of value) if (typeof item === "object" && item !== null) freezeLevels(item, levels - 1);
    return;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    const item = record[key];
    if (typeof item === "object" && item !== null) freezeLevels(item, levels - 1);
  }
}
