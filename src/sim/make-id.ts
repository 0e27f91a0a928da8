/**
 * A deterministic id: prefix + 16 hex digits of the request seed (+ a suffix for the n-th item),
 * within Chat's 40-char replay limit and Anthropic's `^[a-zA-Z0-9_-]+$`.
 */
export function makeId(prefix: string, seed: bigint, n?: number): string {
  const hex = seed.toString(16).padStart(16, "0");
  return n === undefined ? `${prefix}${hex}` : `${prefix}${hex}${n.toString(36)}`;
}
