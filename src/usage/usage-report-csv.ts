import { GROUP_COLUMN, type UsageReport } from "./query-usage-report.ts";
import { USAGE_TOTAL_FIELDS } from "./usage-sums.ts";

/** One CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break. */
function field(value: unknown): string {
  const text = value === null || value === undefined ? "" : String(value);
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** A usage report as CSV: a header line, then one line per group (CRLF line ends). */
export function usageReportCsv(report: UsageReport): string {
  const columns = [...report.group_by.map((group) => GROUP_COLUMN[group]), ...USAGE_TOTAL_FIELDS];
  const lines = [columns.join(",")];
  for (const row of report.data) lines.push(columns.map((column) => field(row[column])).join(","));
  return `${lines.join("\r\n")}\r\n`;
}
