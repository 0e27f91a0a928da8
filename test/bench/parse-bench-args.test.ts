import { describe, expect, test } from "bun:test";
import { join, relative } from "node:path";
import { BenchArgsError, parseBenchArgs } from "../../src/bench/parse-bench-args.ts";

// This checkout has a src/main.ts, so it serves as a baseline checkout for parsing.
const CHECKOUT = join(import.meta.dir, "..", "..");

describe("parseBenchArgs", () => {
  test("defaults", () => {
    const args = parseBenchArgs([]);
    expect(args).toMatchObject({ durationSec: 5, rounds: 3, connections: 32, tool: "auto", json: false, formats: ["messages", "chat", "responses"] });
  });

  test.each([
    [["--duration", "2.5"], { durationSec: 2.5 }],
    [["--rounds", "5"], { rounds: 5 }],
    [["--connections", "64"], { connections: 64 }],
    [["--formats", "responses,messages"], { formats: ["messages", "responses"] }],
    [["--modes", "stream"], { modes: ["stream"] }],
    [["--targets", "gateway,bare"], { targets: ["bare", "gateway"] }],
    [["--targets", "cross,bare"], { targets: ["bare", "cross"] }],
    [["--cpu-prof", "/tmp/prof"], { cpuProfDir: "/tmp/prof" }],
    [["--tool", "builtin"], { tool: "builtin" }],
    [[], { costs: "on" }],
    [["--costs", "only"], { costs: "only" }],
    [["--targets", "cached,gateway"], { targets: ["gateway", "cached"] }],
    [["--out", "/tmp/x.json"], { json: true, out: "/tmp/x.json" }],
    [["--database-url", "postgres://h/db"], { databaseUrl: "postgres://h/db" }],
    [[], { streams: 10_000, streamsOnly: false }],
    [["--streams", "0"], { streams: 0 }],
    [["--streams", "400", "--streams-only"], { streams: 400, streamsOnly: true }],
  ])("%p", (argv, expected) => {
    expect(parseBenchArgs(argv)).toMatchObject(expected);
  });

  test.each([
    [["--duration", "0"], /--duration/],
    [["--connections", "1.5"], /--connections/],
    [["--rounds", "0"], /--rounds/],
    [["--formats", "messages,soap"], /unknown "soap"/],
    [["--tool", "ab"], /--tool/],
    [["--costs", "maybe"], /--costs/],
    [["--streams", "-1"], /--streams/],
    [["--streams", "0", "--streams-only"], /--streams-only needs/],
    [["--nope"], /nope/],
  ])("rejects %p", (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(message);
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

  test("the default targets leave baseline out without it, and put it right after gateway with it", () => {
    expect(parseBenchArgs([]).targets).toEqual(["direct", "bare", "gateway", "cross", "cached"]);
    expect(parseBenchArgs(["--baseline", CHECKOUT]).targets).toEqual(["direct", "bare", "gateway", "baseline", "cross", "cached"]);
  });

  test("with --targets, baseline runs only when listed, in table order", () => {
    expect(parseBenchArgs(["--baseline", CHECKOUT, "--targets", "baseline,bare,gateway"]).targets).toEqual(["bare", "gateway", "baseline"]);
    expect(parseBenchArgs(["--baseline", CHECKOUT, "--targets", "bare,gateway"]).targets).toEqual(["bare", "gateway"]);
  });

  test("the baseline target is refused without --baseline", () => {
    expect(() => parseBenchArgs(["--targets", "gateway,baseline"])).toThrow(/baseline needs --baseline/);
    expect(() => parseBenchArgs(["--targets", "gateway,baseline"])).toThrow(BenchArgsError);
  });

  test("is refused with --database-url: the two gateways would share one database", () => {
    const argv = ["--baseline", CHECKOUT, "--database-url", "postgres://h/db"];
    expect(() => parseBenchArgs(argv)).toThrow(BenchArgsError);
    expect(() => parseBenchArgs(argv)).toThrow(/--baseline cannot be combined with --database-url/);
  });
});
