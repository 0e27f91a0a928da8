import { parseWrkTime } from "./parse-wrk-time.ts";

/** The numbers the bench reads from `wrk --latency` output. */
export interface WrkSummary {
  readonly requests: number;
  readonly durationSec: number;
  readonly requestsPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  readonly socketErrors: number;
}

function requireMatch(output: string, pattern: RegExp, what: string): RegExpExecArray {
  const match = pattern.exec(output);
  if (!match) throw new Error(`wrk: no ${what} in output`);
  return match;
}

/** Reads throughput, p50/p99 and error counts from the text `wrk --latency` prints. */
export function parseWrkOutput(output: string): WrkSummary {
  const total = requireMatch(output, /^\s*(\d+) requests in ([\d.]+)(us|ms|s|m|h),/m, "request total");
  const rps = requireMatch(output, /^Requests\/sec:\s+([\d.]+)/m, "Requests/sec");
  const p50 = requireMatch(output, /^\s*50(?:\.0+)?%\s+(\S+)/m, "50% latency (was --latency given?)");
  const p99 = requireMatch(output, /^\s*99(?:\.0+)?%\s+(\S+)/m, "99% latency (was --latency given?)");
  const non2xx = /^\s*Non-2xx or 3xx responses:\s+(\d+)/m.exec(output);
  // "Socket errors: connect 0, read 1, write 0, timeout 3" — every field is a failed request.
  const socket = /^\s*Socket errors:\s+connect (\d+), read (\d+), write (\d+), timeout (\d+)/m.exec(output);
  const socketErrors = socket ? socket.slice(1, 5).reduce((sum, n) => sum + Number(n), 0) : 0;
  return {
    requests: Number(total[1]),
    durationSec: parseWrkTime(`${total[2]}${total[3]}`) / 1000,
    requestsPerSec: Number(rps[1]),
    p50Ms: parseWrkTime(p50[1]!),
    p99Ms: parseWrkTime(p99[1]!),
    non2xx: non2xx ? Number(non2xx[1]) : 0,
    socketErrors,
  };
}
