/** The `usage_monthly.month` of the UTC month that `at` falls in: its first day, `YYYY-MM-01`. */
export const monthDate = (at: Date): string => `${at.getUTCFullYear().toString().padStart(4, "0")}-${(at.getUTCMonth() + 1).toString().padStart(2, "0")}-01`;
