import { describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import { BenchArgsError, parseBenchArgs } from "../../src/bench/parse-bench-args.ts";

// This checkout has a src/main.ts, so it serves as a baseline checkout for parsing.
const CHECKOUT = join(import.meta.dir, "..", "..");

describe("parseBenchArgs", () => {
  test("no flags: the quick form — Messages clients, short passes, 10 s of settling, every section but the soak and the open-streams row, PGlite and no Redis", () => {
    expect(parseBenchArgs([])).toMatchObject({
      full: false,
      durationSec: 2,
      latencySec: 1,
      rounds: 3,
      connections: 32,
      warmupRequests: 200,
      settleSec: 10,
      formats: ["messages"],
      modes: ["json", "stream"],
      targets: ["bare", "gateway", "cross"],
      sections: ["paths", "bodies", "long-stream", "memory", "costs"],
      databaseUrl: undefined,
      redisUrl: undefined,
      tool: "auto",
      json: false,
    });
  });

  test("--full: every format, longer passes, the extra targets, the ten-minute soak and the open-streams row", () => {
    expect(parseBenchArgs(["--full"])).toMatchObject({
      full: true,
      durationSec: 5,
      latencySec: 2,
      warmupRequests: 300,
      settleSec: 30,
      formats: ["messages", "chat", "responses"],
      targets: ["direct", "bare", "gateway", "cross", "cached"],
      sections: ["paths", "bodies", "long-stream", "memory", "costs", "soak", "open-streams"],
      streams: 10_000,
      soakMinutes: 10,
    });
  });

  test.each([
    [["--duration", "4"], { durationSec: 4 }],
    [["--full", "--duration", "3"], { full: true, durationSec: 3 }],
    [["--latency", "0", "--sections", "paths,long-stream"], { latencySec: 0, sections: ["paths", "long-stream"] }],
    [["--rounds", "5"], { rounds: 5 }],
    [["--settle", "40"], { settleSec: 40 }],
    [["--settle", "0"], { full: false, settleSec: 0 }],
    [["--full", "--settle", "0"], { full: true, settleSec: 0 }],
    [["--connections", "64"], { connections: 64 }],
    [["--formats", "responses,messages"], { formats: ["messages", "responses"] }],
    [["--modes", "stream"], { modes: ["stream"] }],
    [["--targets", "gateway,bare"], { targets: ["bare", "gateway"] }],
    [["--sections", "costs,paths"], { sections: ["paths", "costs"] }],
    [["--sections", "open-streams", "--streams", "400"], { sections: ["open-streams"], streams: 400 }],
    [["--sections", "soak", "--soak-minutes", "3"], { sections: ["soak"], soakMinutes: 3 }],
    [["--cpu-prof", "/tmp/prof"], { cpuProfDir: "/tmp/prof" }],
    [["--perf", "/tmp/perf"], { perfDir: "/tmp/perf" }],
    [["--tool", "builtin"], { tool: "builtin" }],
    [["--out", "/tmp/x.json"], { json: true, out: "/tmp/x.json" }],
    [["--database-url", "postgres://postgres@127.0.0.1:5432/test"], { databaseUrl: "postgres://postgres@127.0.0.1:5432/test" }],
    [["--redis-url", "redis://127.0.0.1:6379"], { redisUrl: "redis://127.0.0.1:6379" }],
  ])("%p", (argv, expected) => {
    expect(parseBenchArgs(argv)).toMatchObject(expected);
  });

  test.each([
    [["--duration", "0"], /--duration/],
    // wrk takes whole seconds.
    [["--duration", "2.5"], /--duration: expected a positive integer/],
    [["--latency", "0.5"], /--latency/],
    [["--settle", "2.5"], /--settle: expected a positive integer/],
    // The big conversations have no pass but the one-connection one (wrk refused -d0s after the setup).
    [["--latency", "0"], /--latency 0: the big conversations \(bodies\)/],
    [["--latency", "0", "--sections", "bodies"], /leave them out with --sections/],
    [["--connections", "1.5"], /--connections/],
    [["--rounds", "0"], /--rounds/],
    [["--formats", "messages,soap"], /unknown "soap"/],
    [["--sections", "paths,vibes"], /--sections: unknown "vibes"/],
    [["--sections", ","], /--sections: empty list/],
    [["--tool", "ab"], /--tool/],
    [["--streams", "-1"], /--streams/],
    [["--soak-minutes", "0"], /--soak-minutes: expected a positive integer/],
    [["--soak-minutes", "1.5"], /--soak-minutes: expected a positive integer/],
    [["--database-url", "mysql://h/db"], /--database-url: expected a postgres:\/\//],
    [["--redis-url", "127.0.0.1:6379"], /--redis-url: expected a redis:\/\//],
    [["--nope"], /nope/],
  ])("rejects %p", (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(message);
    expect(() => parseBenchArgs(argv)).toThrow(BenchArgsError);
  });
});

describe("--baseline", () => {
  test("takes a checkout's directory, made absolute, and is off by default", () => {
    expect(parseBenchArgs([]).baselineDir).toBeUndefined();
    expect(parseBenchArgs(["--baseline", CHECKOUT]).baselineDir).toBe(CHECKOUT);
    expect(parseBenchArgs(["--baseline", relative(process.cwd(), CHECKOUT) || "."]).baselineDir).toBe(CHECKOUT);
  });

  test("rejects a directory without src/main.ts", () => {
    expect(() => parseBenchArgs(["--baseline", join(CHECKOUT, "test")])).toThrow(/--baseline: no src\/main\.ts/);
    expect(() => parseBenchArgs(["--baseline", "/nonexistent/checkout"])).toThrow(BenchArgsError);
  });

  test("joins the default targets right after gateway", () => {
    expect(parseBenchArgs(["--baseline", CHECKOUT]).targets).toEqual(["bare", "gateway", "baseline", "cross"]);
    expect(parseBenchArgs(["--full", "--baseline", CHECKOUT]).targets).toEqual(["direct", "bare", "gateway", "baseline", "cross", "cached"]);
  });

  test("with --targets, baseline runs only when listed, in table order", () => {
    expect(parseBenchArgs(["--baseline", CHECKOUT, "--targets", "baseline,bare,gateway"]).targets).toEqual(["bare", "gateway", "baseline"]);
    expect(parseBenchArgs(["--baseline", CHECKOUT, "--targets", "bare,gateway"]).targets).toEqual(["bare", "gateway"]);
  });

  test("the baseline target is refused without --baseline", () => {
    expect(() => parseBenchArgs(["--targets", "gateway,baseline"])).toThrow(/baseline needs --baseline/);
  });

  test("--baseline-env sets variables for the baseline gateway only, and needs --baseline", () => {
    expect(parseBenchArgs([]).baselineEnv).toEqual({});
    const args = parseBenchArgs(["--baseline", CHECKOUT, "--baseline-env", "MIMALLOC_PURGE_DELAY=10", "--baseline-env", "A=b=c"]);
    expect(args.baselineEnv).toEqual({ MIMALLOC_PURGE_DELAY: "10", A: "b=c" });
    expect(() => parseBenchArgs(["--baseline-env", "A=1"])).toThrow(/--baseline-env: needs --baseline/);
    expect(() => parseBenchArgs(["--baseline", CHECKOUT, "--baseline-env", "=1"])).toThrow(/expected KEY=VALUE/);
    expect(() => parseBenchArgs(["--baseline", CHECKOUT, "--baseline-env", "A"])).toThrow(BenchArgsError);
  });

  test("goes with --database-url (each gateway then gets a database of its own on that server)", () => {
    const args = parseBenchArgs(["--baseline", CHECKOUT, "--database-url", "postgres://h/db"]);
    expect(args).toMatchObject({ baselineDir: CHECKOUT, databaseUrl: "postgres://h/db" });
  });
});
