import { describe, expect, test } from "bun:test";
import { buildReport, type BenchMeta } from "../../src/bench/build-report.ts";
import type { CostRow } from "../../src/bench/measure-module-costs.ts";
import type { PgliteFloor } from "../../src/bench/measure-pglite-floor.ts";
import { formatReport } from "../../src/bench/print-report.ts";
import type { PassResult, ScenarioOutcome } from "../../src/bench/run-scenario.ts";
import type { SoakResult } from "../../src/bench/run-soak.ts";
import type { BenchMode, BenchTarget, Scenario, ScenarioKind } from "../../src/bench/scenarios.ts";

const MB = 1024 * 1024;

const meta = (database: BenchMeta["database"]): BenchMeta => ({
  profile: "quick",
  tool: "wrk",
  database,
  redis: database === "postgres",
  connections: 32,
  durationSec: 2,
  rounds: 3,
  latencySec: 1,
  settleSec: 0,
  sections: ["paths", "bodies", "long-stream", "memory", "costs"],
  soakMinutes: 10,
  bunVersion: "1.4.5",
  nproc: 2,
  startedAt: "2026-01-01T00:00:00.000Z",
  otherCpuShare: 0.02,
});

const scenario = (kind: ScenarioKind, id: string, target: BenchTarget, mode: BenchMode, body = "{}", bodyCase = ""): Scenario => ({
  id,
  kind,
  bodyCase,
  format: "messages",
  mode,
  target,
  url: "http://x",
  headers: {},
  body,
  passes: ["load", "single"],
  warmupRequests: 1,
});

const pass = (cpu: number, p99Ms: number, peakMb: number, extra: Partial<PassResult> = {}): PassResult => ({
  tool: "wrk",
  requests: 1000,
  durationSec: 2,
  requestsPerSec: 500,
  p50Ms: p99Ms / 4,
  p99Ms,
  errors: 0,
  cpuUsPerRequest: cpu,
  peakRssBytes: peakMb * MB,
  ...extra,
});

const both = (cpu: number, p99Ms: number, peakMb: number, extra: Partial<PassResult> = {}): ScenarioOutcome => ({ load: pass(cpu, p99Ms, peakMb, extra), single: pass(cpu, 1, peakMb) });

const path = (target: BenchTarget, mode: BenchMode, outcome: ScenarioOutcome) => ({ scenario: scenario("path", `messages/${mode}/${target}`, target, mode), rounds: [outcome] });

const FLOOR: PgliteFloor = { openRssBytes: 290 * MB, afterInsertsRssBytes: 380 * MB, peakBytes: 390 * MB, inserts: 2000, insertsMs: 300 };

// Bare: 30 µs JSON, 40 µs stream, p99 4 ms. Same-format JSON 45 µs (1.5×, pass), stream 100 µs (2.5×, miss),
// translated JSON 60 µs (2.0×, pass, p99 7 ms > 4 + 2.5: miss), translated stream 90 µs (2.25×, pass).
const PATHS = [
  path("bare", "json", both(30, 4, 45)),
  path("gateway", "json", both(45, 5, 470)),
  path("cross", "json", both(60, 7, 470)),
  path("bare", "stream", both(40, 4, 45)),
  path("gateway", "stream", both(100, 5, 490)),
  path("cross", "stream", both(90, 6, 470)),
];

describe("buildReport: the path rows", () => {
  const report = buildReport({ meta: meta("pglite"), measured: PATHS, memory: { floor: FLOOR } });
  const row = (id: string) => report.paths.find((p) => p.id === id)!;

  test("in the issue's order, each against the bare proxy of its format and mode", () => {
    expect(report.paths.map((p) => [p.kind, p.upstreamApi])).toEqual([
      ["same-json", "messages"],
      ["same-stream", "messages"],
      ["translated-json", "chat"],
      ["translated-stream", "chat"],
    ]);
    expect(row("messages/stream/gateway")).toMatchObject({ cpuRatio: 2.5, cpuBeyondBareUs: 60 });
  });

  test("CPU ratio against each row's own target", () => {
    expect(report.paths.map((p) => p.verdicts?.cpu.pass)).toEqual([true, false, true, true]);
    expect(row("messages/json/gateway").verdicts?.cpu.target).toBe("≤ 1.6×");
    expect(row("messages/stream/cross").verdicts?.cpu.target).toBe("≤ 2.5×");
  });

  test("p99 under load within bare's p99 plus the row's allowance", () => {
    expect(report.paths.map((p) => p.verdicts?.p99.pass)).toEqual([true, true, false, true]);
  });

  test("RSS on PGlite: at most the floor measured in the same run plus 100 MB", () => {
    expect(report.paths.map((p) => p.verdicts?.rss.pass)).toEqual([true, false, true, true]);
    expect(report.memory).toMatchObject({ rssLimitBytes: 480 * MB, gatewayPeakRssBytes: 490 * MB, rss: { pass: false } });
  });

  test("RSS on Postgres: at most 150 MB, no floor needed", () => {
    const postgres = buildReport({ meta: meta("postgres"), measured: PATHS, memory: {} });
    expect(postgres.paths.map((p) => p.verdicts?.rss)).toEqual(Array(4).fill({ target: "≤ 150 MB", pass: false }));
  });

  test("RSS on PGlite without the floor cannot be judged", () => {
    const unjudged = buildReport({ meta: meta("pglite"), measured: PATHS });
    expect(unjudged.paths.every((p) => p.verdicts?.rss.pass === undefined)).toBe(true);
    expect(unjudged.summary.judged).toBe(8);
  });

  test("an error in a row fails its CPU and p99 marks: a fast error is not a pass", () => {
    const failing = buildReport({ meta: meta("pglite"), measured: [path("bare", "json", both(30, 4, 45)), path("gateway", "json", both(31, 4, 100, { errors: 3, firstError: "HTTP 500" }))] });
    expect(failing.paths[0]!.verdicts).toMatchObject({ cpu: { pass: false }, p99: { pass: false } });
    expect(formatReport(failing)).toContain("! same-format JSON · messages: HTTP 500");
  });

  test("a row without its bare proxy has no ratio and is not judged on CPU", () => {
    const alone = buildReport({ meta: meta("pglite"), measured: [path("gateway", "json", both(45, 5, 100))] });
    expect(alone.paths[0]).toMatchObject({ cpuRatio: undefined, verdicts: { cpu: { pass: undefined }, p99: { pass: undefined } } });
  });

  test("the printed report gives each row's numbers and marks, and the targets", () => {
    const text = formatReport(report);
    expect(text).toMatch(/same-format stream · messages\s+100\s+40\s+2\.50×.*MISS/);
    expect(text).toMatch(/translated JSON · messages → chat\s+60\s+30\s+2\.00×/);
    expect(text).toContain("same-format JSON CPU ≤ 1.6×, p99 ≤ bare + 1.5 ms");
    expect(text).toContain("RSS ≤ 480 MB");
  });

  test("the header gives the CPU share other programs took during the run, and labels the run busy past a tenth", () => {
    expect(formatReport(report)).toContain(" · other programs took 2 % of the CPU");
    expect(formatReport(report)).not.toContain("busy machine");
    const busy = buildReport({ meta: { ...meta("pglite"), otherCpuShare: 0.25 }, measured: PATHS });
    expect(formatReport(busy)).toContain(" · other programs took 25 % of the CPU (busy machine: numbers skewed by them)");
    // Before the run has ended (the line printed at its start) there is no share to give.
    expect(formatReport(buildReport({ meta: { ...meta("pglite"), otherCpuShare: undefined }, measured: PATHS }))).not.toContain("other programs");
  });

  test("the header gives the scenarios' passes and rounds when any ran, and the soak's length when it ran", () => {
    expect(formatReport(report)).toContain("quick · gateway on PGlite · tool wrk · 32 connections 2s + 1 connection 1s per scenario · median of 3 interleaved rounds · Bun 1.4.5");
    const soakOnly = buildReport({ meta: { ...meta("postgres"), sections: ["soak"], soakMinutes: 7 }, measured: [] });
    expect(formatReport(soakOnly)).toContain("quick · gateway on Postgres + Redis · tool wrk · a 7-minute soak at 32 connections · Bun 1.4.5");
    expect(formatReport(soakOnly)).not.toContain("per scenario");
    // One connection is one connection, in the header as in the soak's line.
    const single = formatReport(buildReport({ meta: { ...meta("pglite"), connections: 1 }, measured: PATHS }));
    expect(single).toContain(" · 1 connection 2s + 1 connection 1s per scenario");
    expect(single).not.toContain("1 connections");
    // …and the loaded pass's columns are told apart from the one-connection pass's.
    expect(single).toContain("gw p50/p99 @1 loaded");
    expect(formatReport(report)).toContain("gw p50/p99 @32");
    // Settling load before the first round is named, as it changes what the rounds measure.
    expect(formatReport(report)).not.toContain("settling");
    const settled = buildReport({ meta: { ...meta("pglite"), settleSec: 30 }, measured: PATHS });
    expect(formatReport(settled)).toContain("quick · gateway on PGlite · tool wrk · 30s settling first · 32 connections 2s");
  });

  test("the baseline checkout's and the cache hit's rows say whether they are the JSON or the stream row", () => {
    const measured = [...PATHS, path("baseline", "json", both(50, 4, 450)), path("baseline", "stream", both(70, 5, 460)), path("cached", "json", both(20, 2, 440)), path("cached", "stream", both(30, 3, 440))];
    const text = formatReport(buildReport({ meta: { ...meta("pglite"), baseline: { dir: "/tmp/base", env: {} } }, measured }));
    expect(text).toMatch(/baseline checkout, same-format JSON · messages\s+50\s/);
    expect(text).toMatch(/baseline checkout, same-format stream · messages\s+70\s/);
    expect(text).toMatch(/cache hit, JSON · messages\s+20\s/);
    expect(text).toMatch(/cache hit, stream · messages\s+30\s/);
  });

  test("the header names the baseline checkout and the environment it was given", () => {
    expect(formatReport(report)).not.toContain("baseline");
    const withBaseline = buildReport({ meta: { ...meta("pglite"), baseline: { dir: "/tmp/base", env: { MIMALLOC_PURGE_DELAY: "10" } } }, measured: PATHS });
    expect(formatReport(withBaseline)).toContain(" · baseline /tmp/base MIMALLOC_PURGE_DELAY=10");
  });
});

describe("buildReport: CPU by thread", () => {
  const split = (main: number, gc: number, fetch: number, worker: number) => ({ main, gc, fetch, worker, jit: 0, other: 0 });
  const long = (target: BenchTarget, cpu: number, threads: PassResult["threadUsPerRequest"]) => ({
    scenario: scenario("long-stream", `long-stream/messages/${target}`, target, "stream"),
    rounds: [{ load: pass(cpu, 50, 100, { threadUsPerRequest: threads }) }],
  });

  test("each process of each row, its CPU per request split by role, beside its total", () => {
    const measured = [
      path("bare", "json", both(30, 4, 45, { threadUsPerRequest: split(25, 0, 5, 0) })),
      path("gateway", "json", both(45, 5, 470, { threadUsPerRequest: split(30, 6, 4, 5), collector: { fullPer1k: 1.1, edenPer1k: 1.25, stoppedUsPerRequest: 15.64, allocatedKbPerRequest: 28.9 } })),
      long("bare", 1_000, split(600, 0, 400, 0)),
      long("cross", 2_600, split(1_900, 500, 150, 50)),
    ];
    const text = formatReport(buildReport({ meta: meta("pglite"), measured, longStreamEvents: { "long-stream/messages/cross": 2_000 } }));
    expect(text).toContain("by thread: each process's CPU µs per request split by what its threads do");
    expect(text).toMatch(/row\s+process\s+main\s+gc\s+fetch\s+worker\s+jit\s+other\s+total\s+full \/1k\s+eden \/1k\s+stopped µs\s+alloc KB/);
    // The collector's columns where its log was read, dashes where not.
    expect(text).toMatch(/same-format JSON · messages\s+gateway\s+30\s+6\s+4\s+5\s+0\s+0\s+45\s+1\.1\s+1\.3\s+15\.6\s+28\.9\n\s+bare\s+25\s+0\s+5\s+0\s+0\s+0\s+30\s+-\s+-\s+-\s+-\n/);
    expect(text).toMatch(/long stream, in one burst · messages → chat\s+translated\s+1900\s+500\s+150\s+50\s+0\s+0\s+2600\s+-\s+-\s+-\s+-\n\s+bare\s+600\s+0\s+400/);
  });

  test("a row whose first process has no split keeps its label on the next one", () => {
    const measured = [long("bare", 1_000, split(600, 0, 400, 0)), long("cross", 2_600, undefined)];
    const text = formatReport(buildReport({ meta: meta("pglite"), measured, longStreamEvents: { "long-stream/messages/cross": 2_000 } }));
    expect(text).toMatch(/long stream, in one burst · messages → chat\s+bare\s+600\s+0\s+400/);
    expect(text).not.toMatch(/\n\s+translated\s/);
  });

  test("left out when no process was split (no procfs)", () => {
    expect(formatReport(buildReport({ meta: meta("pglite"), measured: PATHS }))).not.toContain("by thread");
  });
});

describe("buildReport: --perf", () => {
  const attribution = {
    samples: 1_000,
    mainSamples: 600,
    otherThreads: [
      { name: "HTTP Client", samples: 250 },
      { name: "HeapHelper", samples: 150 },
    ],
    functions: [
      { name: "(no JavaScript: the event loop, the HTTP server, native callbacks)", samples: 120 },
      { name: "answerFromModels", samples: 60 },
      ...Array.from({ length: 20 }, (_, i) => ({ name: `part${i}`, samples: 21 })),
    ],
  };

  test("each profiled pass: its main thread's share of the CPU per request, the top functions, the rest in one line", () => {
    const profiles = [
      { scenarioId: "messages/json/gateway", cpuUsPerRequest: 200, attribution },
      { scenarioId: "messages/stream/gateway", cpuUsPerRequest: 300, error: "perf record exited with 255: no access" },
    ];
    const report = buildReport({ meta: meta("pglite"), measured: PATHS, profiles });
    expect(report.profiles).toEqual(profiles);
    const text = formatReport(report);
    expect(text).toContain("perf: the main thread of the gateway (and of the bare proxy, its floor) in each row's first pass (the loaded one; the big conversations' one-connection pass) of the run's middle round in time");
    // 600 of 1,000 samples of 200 µs a request.
    expect(text).toMatch(/messages\/json\/gateway\s+120\.0\s+100 %\s+main thread, of 200 µs\/req in all \(1000 samples\); other threads: HTTP Client 50\.0, HeapHelper 30\.0/);
    expect(text).toMatch(/\n\s+24\.0\s+20\.0 %\s+\(no JavaScript: the event loop/);
    expect(text).toMatch(/\n\s+12\.0\s+10\.0 %\s+answerFromModels/);
    expect(text).toMatch(/\n\s+4\.2\s+3\.5 %\s+part13\n\s+25\.2\s+21\.0 %\s+6 other functions/);
    expect(text).not.toContain("part14");
    expect(text).toMatch(/messages\/stream\/gateway\s+-\s+-\s+perf record exited with 255: no access/);
  });

  test("left out without --perf", () => {
    const report = buildReport({ meta: meta("pglite"), measured: PATHS });
    expect(report.profiles).toBeUndefined();
    expect(formatReport(report)).not.toContain("perf:");
  });
});

describe("buildReport: big conversations", () => {
  const body = (caseId: string, bytes: number, target: BenchTarget, outcome: ScenarioOutcome) => ({
    scenario: scenario("body", `body/${caseId}/${target}`, target, "json", "x".repeat(bytes), caseId),
    rounds: [outcome],
  });
  const single = (cpu: number, p50Ms: number): ScenarioOutcome => ({ single: pass(cpu, p50Ms * 4, 100) });
  const measured = (cpu1m: number) => [
    body("1k", 1024, "direct", single(20, 0.1)),
    body("1k", 1024, "bare", single(30, 0.15)),
    body("1k", 1024, "gateway", single(100, 0.3)),
    body("100k", 101 * 1024, "direct", single(200, 0.5)),
    body("100k", 101 * 1024, "bare", single(150, 0.6)),
    body("100k", 101 * 1024, "gateway", single(300, 0.7)),
    body("1m", 1001 * 1024, "direct", single(2000, 3)),
    body("1m", 1001 * 1024, "bare", single(1000, 3.5)),
    body("1m", 1001 * 1024, "gateway", single(cpu1m, 4)),
  ];

  test("added p50 over the direct call, against 0.25 ms at 100 KB and 1.2 ms at 1 MB", () => {
    const report = buildReport({ meta: meta("pglite"), measured: measured(2_100) });
    expect(report.bodies.map((b) => [b.caseId, b.addedP50Ms])).toEqual([
      ["1k", expect.closeTo(0.2, 9)],
      ["100k", expect.closeTo(0.2, 9)],
      ["1m", expect.closeTo(1, 9)],
    ]);
    expect(report.bodies.map((b) => b.addedP50?.pass)).toEqual([undefined, true, true]);
  });

  test("the bare proxy's added p50 beside the gateway's: the floor a hop puts under the target", () => {
    const report = buildReport({ meta: meta("pglite"), measured: measured(2_100) });
    expect(report.bodies.map((b) => [b.caseId, b.bareAddedP50Ms])).toEqual([
      ["1k", expect.closeTo(0.05, 9)],
      ["100k", expect.closeTo(0.1, 9)],
      ["1m", expect.closeTo(0.5, 9)],
    ]);
    const text = formatReport(report);
    expect(text).toMatch(/added p50\s+target\s+bare added p50\s+gw µs\/req/);
    expect(text).toMatch(/Claude-Code-like, 1 MB\s+1001 KB\s+3\.00\s+4\.00\s+\+1\.00\s+≤ 1\.2 ms\s+\+0\.50\s+2100/);
  });

  test("the slope: gateway µs per KB above the small request, and a verdict on growth no faster than the body", () => {
    // 200 µs over 100 KB = 2 µs/KB; 1,800 µs over the next 900 KB = 2 µs/KB: linear.
    const linear = buildReport({ meta: meta("pglite"), measured: measured(2_100) });
    expect(linear.bodies.map((b) => b.slopeUsPerKb)).toEqual([undefined, 2, 2]);
    expect(linear.bodies[2]!.slope?.pass).toBe(true);
    // 9,700 µs over the next 900 KB ≈ 10.8 µs/KB: faster than the body.
    const steeper = buildReport({ meta: meta("pglite"), measured: measured(10_000) });
    expect(steeper.bodies[2]!.slope?.pass).toBe(false);
    expect(formatReport(steeper)).toContain("100 KB→1 MB slope ≤ 1.25× the slope up to 100 KB");
  });
});

describe("buildReport: the long stream", () => {
  const long = (target: BenchTarget, cpu: number) => ({ scenario: scenario("long-stream", `long-stream/messages/${target}`, target, "stream"), rounds: [{ load: pass(cpu, 50, 100) }] });

  test("the translated path's CPU beyond the bare proxy per event, against 1 µs", () => {
    const report = buildReport({ meta: meta("pglite"), measured: [long("bare", 1_000), long("cross", 2_600)], longStreamEvents: { "long-stream/messages/cross": 2_000 } });
    expect(report.longStreams[0]).toMatchObject({ events: 2_000, crossUsPerEvent: 0.8, verdict: { pass: true } });
    const slow = buildReport({ meta: meta("pglite"), measured: [long("bare", 1_000), long("cross", 5_000)], longStreamEvents: { "long-stream/messages/cross": 2_000 } });
    expect(slow.longStreams[0]).toMatchObject({ crossUsPerEvent: 2, verdict: { pass: false } });
  });

  test("the baseline checkout's translated path, per event beside the gateway's, printed only when it ran", () => {
    const events = { "long-stream/messages/cross": 2_000, "long-stream/messages/baseline": 2_000 };
    const report = buildReport({ meta: meta("pglite"), measured: [long("bare", 1_000), long("cross", 2_600), long("baseline", 3_000)], longStreamEvents: events });
    expect(report.longStreams[0]).toMatchObject({ crossUsPerEvent: 0.8, baselineUsPerEvent: 1 });
    expect(formatReport(report)).toContain("baseline beyond bare per event");
    const without = buildReport({ meta: meta("pglite"), measured: [long("bare", 1_000), long("cross", 2_600)], longStreamEvents: events });
    expect(formatReport(without)).not.toContain("baseline beyond bare per event");
  });

  test("the trickled answer: per event beyond the bare proxy on both paths, shown beside the burst and never judged", () => {
    const trickled = (target: BenchTarget, cpu: number) => ({ scenario: scenario("trickled-stream", `trickled-stream/messages/${target}`, target, "stream"), rounds: [{ load: pass(cpu, 50, 100) }] });
    const events = { "long-stream/messages/cross": 2_000, "trickled-stream/messages/cross": 200, "trickled-stream/messages/gateway": 100 };
    const measured = [long("bare", 1_000), long("cross", 2_600), trickled("bare", 2_000), trickled("cross", 6_000), trickled("gateway", 3_000)];
    const report = buildReport({ meta: meta("pglite"), measured, longStreamEvents: events });
    expect(report.longStreams.map((r) => r.kind)).toEqual(["long-stream", "trickled-stream"]);
    expect(report.longStreams[1]).toMatchObject({ events: 200, crossUsPerEvent: 20, sameUsPerEvent: 10, verdict: { target: "-", pass: undefined } });
    expect(report.summary).toEqual({ met: 1, judged: 1 });
    const text = formatReport(report);
    expect(text).toMatch(/in one burst · messages → chat\s+2000\s+1000\s+2600\s+0\.800 µs/);
    expect(text).toMatch(/one every 1 ms · messages → chat\s+200\s+2000\s+6000\s+20\.000 µs\s+-\s+3000\s+10\.000 µs/);
  });

  test("without the event count it is not judged", () => {
    const report = buildReport({ meta: meta("pglite"), measured: [long("bare", 1_000), long("cross", 2_600)] });
    expect(report.longStreams[0]!.verdict.pass).toBeUndefined();
  });
});

describe("buildReport: memory and the budget", () => {
  test("without the memory section only the peak under load is printed, no line of dashes", () => {
    const text = formatReport(buildReport({ meta: meta("pglite"), measured: PATHS }));
    expect(text).toMatch(/ {2}gateway: \d+ MB peak under the bench's load/);
    expect(text).not.toContain("idle after start");
    expect(text).not.toContain("first start");
    const full = formatReport(buildReport({ meta: meta("pglite"), measured: PATHS, memory: { floor: FLOOR, firstStartPeakBytes: 200 * MB, firstStartNote: "the bench's gateway", gatewayIdleRssBytes: 150 * MB } }));
    expect(full).toContain("gateway: 150 MB idle after start, ");
    expect(full).toContain("first start from source on an empty data dir (the bench's gateway): peak 200 MB");
  });

  test("the first start against 500 MB, reported beside the floor", () => {
    const report = buildReport({ meta: meta("pglite"), measured: [], memory: { floor: FLOOR, firstStartPeakBytes: 1_050 * MB, firstStartNote: "the bench's gateway", gatewayIdleRssBytes: 310 * MB } });
    expect(report.memory?.firstStart).toEqual({ target: "≤ 500 MB", pass: false });
    const text = formatReport(report);
    expect(text).toContain("holds 290 MB, 380 MB after 2000 small inserts");
    expect(text).toContain("peak 1050 MB (target ≤ 500 MB) MISS");
    // The memory section alone ran no load: said in words, where the peak was a dash.
    expect(text).toContain("gateway: 310 MB idle after start, no peak under load (no load ran in this run)");
    expect(text).not.toContain("- peak under the bench's load");
  });

  const cost = (id: string, part: CostRow["part"], meanUs: number): CostRow => ({ id, part, label: id, meanUs, p50Us: meanUs, p99Us: meanUs, calls: 1, targetP50Us: undefined, note: "", sink: 1 });
  const COSTS = [
    cost("auth", "auth", 1),
    cost("limits", "limits", 2),
    cost("usage-row", "usage row", 10),
    cost("request-log", "request log", 2),
    cost("metrics", "metrics", 1),
    cost("body-check/messages", "body check", 1),
    cost("routing/messages", "routing", 5),
    cost("cache/messages", "cache key + store", 3),
    cost("same-format-json/messages", "same-format answer", 2),
  ];

  test("a path row's CPU beyond bare, set against the parts its request goes through", () => {
    const report = buildReport({ meta: meta("pglite"), measured: PATHS, costs: COSTS });
    // Only the same-format JSON row has every part it needs among these costs.
    expect(report.budget).toEqual([
      expect.objectContaining({ rowId: "messages/json/gateway", partsUs: 27, beyondBareUs: 15, restUs: -12 }),
    ]);
    expect(report.budget[0]!.parts.map((p) => p.id)).toContain("same-format-json/messages");
  });

  test("a part also timed under the path rows' load counts as loaded requests make it", () => {
    const report = buildReport({ meta: meta("pglite"), measured: PATHS, costs: [...COSTS, cost("limits/loaded", "limits", 0.5)] });
    expect(report.budget[0]).toMatchObject({ partsUs: 25.5, restUs: -10.5 });
    expect(report.budget[0]!.parts.map((p) => p.id)).toContain("limits/loaded");
    expect(report.budget[0]!.parts.map((p) => p.id)).not.toContain("limits");
  });

  test("the cost section shows each part's cells a call and the types it allocates most; a dash where none were counted", () => {
    const counted: CostRow = {
      ...cost("routing/messages", "routing", 5),
      cells: {
        perCall: 124.4,
        byType: [
          { type: "Object", perCall: 29.2 },
          { type: "string", perCall: 27 },
          { type: "JSLexicalEnvironment", perCall: 20 },
          { type: "Function", perCall: 19 },
        ],
      },
    };
    const text = formatReport(buildReport({ meta: meta("pglite"), measured: PATHS, costs: [cost("auth", "auth", 1), counted] }));
    expect(text).toMatch(/cost section: .*cells\/call = objects, strings, closures and arrays/);
    expect(text).toMatch(/calls\s+cells\/call\s+most allocated\s+note/);
    expect(text).toMatch(/routing\s+routing\/messages\s+5\.00\s+5\.00\s+5\.00\s+1\s+124\s+Object 29, string 27, JSLexicalEnvironment 20\s*\n/);
    expect(text).toMatch(/auth\s+auth\s+1\.00\s+1\.00\s+1\.00\s+1\s+-\s*\n/);
  });

  test("the summary counts the verdicts judged and met", () => {
    const report = buildReport({ meta: meta("pglite"), measured: PATHS, memory: { floor: FLOOR, firstStartPeakBytes: 400 * MB } });
    // 4 rows × (CPU, p99, RSS) = 12, plus the first start; met: CPU 3, p99 3, RSS 3, first start 1.
    expect(report.summary).toEqual({ met: 10, judged: 13 });
    expect(formatReport(report)).toContain("targets met: 10 of 13 judged");
  });
});

describe("buildReport: the soak", () => {
  /** Three minutes, four passes a minute; the RSS steps from `first` to `after` MB after the first minute. */
  const soak = (first: number, after: number): SoakResult => ({
    minutes: 3,
    passSec: 15,
    connections: 32,
    passes: Array.from({ length: 12 }, (_, i) => ({ scenarioId: `soak/messages/json/gateway`, startSec: i * 15, requests: 30_000, errors: 0, cpuMs: 6_000 })),
    samples: Array.from({ length: 181 }, (_, sec) => ({ atSec: sec, rssBytes: (sec < 60 ? first : sec < 120 ? after : after * 1.05) * MB })),
  });

  test("minute by minute in the report, its flatness counted among the verdicts", () => {
    const report = buildReport({ meta: meta("postgres"), measured: PATHS, soak: soak(200, 300) });
    expect(report.soak).toMatchObject({ requests: 360_000, settledRssBytes: 300 * MB, endRssBytes: 315 * MB, flat: { pass: true } });
    // 4 rows × (CPU, p99, RSS) = 12, and the soak.
    expect(report.summary.judged).toBe(13);
    const text = formatReport(report);
    expect(text).toContain("soak: 3 minutes of the path rows' four requests in turn (15 s a pass, 32 connections), each request a new conversation");
    expect(text).toMatch(/\n {2}1 +120000 +0 +200 +200 MB +200 MB\n/);
    expect(text).toContain("RSS: 300 MB in the minute after the fill, 315 MB in the last (+5.0 %), peak 315 MB · flat: last minute ≤ minute 2 + 10 % PASS");
  });

  test("a soak that grew past the allowance is a miss", () => {
    const grown = soak(200, 300);
    const report = buildReport({ meta: meta("postgres"), measured: [], soak: { ...grown, samples: grown.samples.map((s) => (s.atSec >= 120 ? { ...s, rssBytes: 340 * MB } : s)) } });
    expect(report.soak?.flat.pass).toBe(false);
    expect(report.summary).toEqual({ met: 0, judged: 1 });
    expect(formatReport(report)).toContain("(+13.3 %), peak 340 MB · flat: last minute ≤ minute 2 + 10 % MISS");
  });

  test("a one-minute soak is printed, and not judged", () => {
    const one = soak(200, 300);
    const report = buildReport({
      meta: meta("postgres"),
      measured: [],
      soak: { ...one, minutes: 1, passes: one.passes.slice(0, 4), samples: one.samples.slice(0, 61) },
    });
    expect(report.summary).toEqual({ met: 0, judged: 0 });
    expect(formatReport(report)).toContain("soak: 1 minute of the path rows' four requests");
  });

  test("left out of the report when it did not run", () => {
    const report = buildReport({ meta: meta("postgres"), measured: PATHS });
    expect(report.soak).toBeUndefined();
    expect(formatReport(report)).not.toContain("soak:");
  });
});
