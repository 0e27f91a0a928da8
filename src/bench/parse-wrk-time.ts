// wrk prints times with the unit that keeps the number small (units.c): us, ms, s, then m, h.
const TIME_UNIT_MS: Readonly<Record<string, number>> = { us: 0.001, ms: 1, s: 1000, m: 60_000, h: 3_600_000 };

/** "812.00us" → 0.812; "1.50m" → 90000. */
export function parseWrkTime(text: string): number {
  const match = /^([\d.]+)(us|ms|s|m|h)$/.exec(text.trim());
  if (!match) throw new Error(`wrk: unreadable time "${text}"`);
  return Number(match[1]) * TIME_UNIT_MS[match[2]!]!;
}
