import { describe, expect, test } from "bun:test";
import { parseWrkOutput } from "../../src/bench/parse-wrk-output.ts";
import { parseWrkTime } from "../../src/bench/parse-wrk-time.ts";

// Real `wrk 4.1.0 --latency` output (first sample captured on this project's bench machine).
const MIXED_UNITS_WITH_NON2XX = `Running 2s test @ http://127.0.0.1:18999/
  2 threads and 16 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.14ms    5.13ms  56.69ms   96.53%
    Req/Sec    45.53k    14.81k   79.11k    77.50%
  Latency Distribution
     50%  146.00us
     75%  221.00us
     90%    1.16ms
     99%   33.09ms
  181553 requests in 2.01s, 20.15MB read
  Non-2xx or 3xx responses: 3631
Requests/sec:  90477.61
Transfer/sec:     10.04MB`;

const CLEAN_MS = `Running 5s test @ http://127.0.0.1:41877/v1/messages
  2 threads and 32 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     2.91ms  612.40us  14.02ms   88.12%
    Req/Sec     5.53k   401.22     6.20k    71.00%
  Latency Distribution
     50%    2.80ms
     75%    3.05ms
     90%    3.49ms
     99%    5.12ms
  55012 requests in 5.00s, 71.33MB read
Requests/sec:  11000.53
Transfer/sec:     14.26MB
`;

const SECONDS_AND_SOCKET_ERRORS = `Running 10s test @ http://127.0.0.1:8787/v1/chat/completions
  2 threads and 256 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency   812.33ms  402.10ms   1.99s    61.20%
    Req/Sec   140.12     60.31   310.00     68.00%
  Latency Distribution
     50%  790.04ms
     75%    1.10s
     90%    1.42s
     99%    1.91s
  2790 requests in 10.10s, 3.61MB read
  Socket errors: connect 0, read 2, write 0, timeout 37
  Non-2xx or 3xx responses: 5
Requests/sec:    276.24
Transfer/sec:    366.02KB
`;

const MINUTES = `Running 2m test @ http://127.0.0.1:1/
  1 threads and 1 connections
  Thread Stats   Avg      Stdev     Max   +/- Stdev
    Latency     1.50m     0.00us   1.50m   100.00%
    Req/Sec     0.00      0.00     0.00    100.00%
  Latency Distribution
     50%    1.50m
     75%    1.50m
     90%    1.50m
     99%    1.50m
  1 requests in 2.00m, 1.00KB read
Requests/sec:      0.01
Transfer/sec:       8.53B
`;

describe("parseWrkOutput", () => {
  test.each([
    [
      "us p50, ms p99, non-2xx",
      MIXED_UNITS_WITH_NON2XX,
      { requests: 181553, durationSec: 2.01, requestsPerSec: 90477.61, p50Ms: 0.146, p99Ms: 33.09, non2xx: 3631, socketErrors: 0 },
    ],
    [
      "clean run in ms",
      CLEAN_MS,
      { requests: 55012, durationSec: 5, requestsPerSec: 11000.53, p50Ms: 2.8, p99Ms: 5.12, non2xx: 0, socketErrors: 0 },
    ],
    [
      "seconds, socket errors and non-2xx",
      SECONDS_AND_SOCKET_ERRORS,
      { requests: 2790, durationSec: 10.1, requestsPerSec: 276.24, p50Ms: 790.04, p99Ms: 1910, non2xx: 5, socketErrors: 39 },
    ],
    ["minutes", MINUTES, { requests: 1, durationSec: 120, requestsPerSec: 0.01, p50Ms: 90_000, p99Ms: 90_000, non2xx: 0, socketErrors: 0 }],
  ])("%s", (_name, output, expected) => {
    const parsed = parseWrkOutput(output);
    for (const [key, value] of Object.entries(expected)) {
      expect(parsed[key as keyof typeof parsed]).toBeCloseTo(value, 6);
    }
  });

  test.each([
    ["no --latency distribution", CLEAN_MS.replace(/ {2}Latency Distribution[\s\S]*?(?= {2}55012)/, ""), /50% latency/],
    ["connection refused", "unable to connect to 127.0.0.1:18998 Connection refused", /request total/],
    ["empty", "", /request total/],
  ])("rejects output with %s", (_name, output, message) => {
    expect(() => parseWrkOutput(output)).toThrow(message);
  });
});

describe("parseWrkTime", () => {
  test.each([
    ["146.00us", 0.146],
    ["2.80ms", 2.8],
    ["1.91s", 1910],
    ["1.50m", 90_000],
    ["1.00h", 3_600_000],
  ])("%s → %d ms", (text, expected) => {
    expect(parseWrkTime(text)).toBeCloseTo(expected, 9);
  });

  test.each(["", "12", "3.0ns", "ms"])("rejects %p", (text) => {
    expect(() => parseWrkTime(text)).toThrow();
  });
});
