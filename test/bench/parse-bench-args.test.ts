import { describe, expect, test } from "bun:test";
import { parseBenchArgs } from "../../src/bench/parse-bench-args.ts";

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
    [["--nope"], /nope/],
  ])("rejects %p", (argv, message) => {
    expect(() => parseBenchArgs(argv)).toThrow(message);
  });
});
