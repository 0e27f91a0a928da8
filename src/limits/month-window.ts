/** The UTC calendar month holding `nowMs`: its start, the next month's start, and its `YYYY-MM` name. */
export function monthWindow(nowMs: number): { start: number; end: number; key: string } {
  const date = new Date(nowMs);
  const year = date.getUTCFullYear();
  const month = date.getUTCMonth();
  const start = Date.UTC(year, month, 1);
  const end = Date.UTC(year, month + 1, 1);
  return { start, end, key: `${year}-${String(month + 1).padStart(2, "0")}` };
}
