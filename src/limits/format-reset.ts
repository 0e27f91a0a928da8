/** A duration as the `x-ratelimit-reset-*` headers spell it: `250ms`, `12.5s`, `6m0s`, `3h4m5s`. */
export function formatReset(ms: number): string {
  const clamped = Math.max(0, Math.ceil(ms));
  if (clamped < 1000) return `${clamped}ms`;
  if (clamped < 60_000) return `${Math.round(clamped / 100) / 10}s`;
  const totalSeconds = Math.ceil(clamped / 1000);
  const hours = Math.floor(totalSeconds / 3600);
  const minutes = Math.floor((totalSeconds % 3600) / 60);
  const seconds = totalSeconds % 60;
  return hours > 0 ? `${hours}h${minutes}m${seconds}s` : `${minutes}m${seconds}s`;
}
