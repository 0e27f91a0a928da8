import { describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { loadLibc, type Libc } from "../../src/ops/load-libc.ts";
import { sizeProcess, tuneRuntime } from "../../src/ops/size-process.ts";

/** The variable Bun reads its fetch pool size from, once, at start. */
const FETCH_POOL_VARIABLE = "BUN_CONFIG_MAX_HTTP_REQUESTS";
/** The JSC option (through Bun's BUN_JSC_ prefix) that starts full collections sooner. */
const OLD_GENERATION_VARIABLE = "BUN_JSC_minEdenToOldGenerationRatio";
/** The allocator's (mimalloc's) delay before freed memory goes back to the system. */
const PURGE_DELAY_VARIABLE = "MIMALLOC_PURGE_DELAY";
/** The JSC option that holds the heap's growth to what hosts under 16 GiB get. */
const HEAP_GROWTH_VARIABLE = "BUN_JSC_heapGrowthMaxIncrease";
/** An environment where all four are set as the gateway sets them. */
const SIZED = { [FETCH_POOL_VARIABLE]: "16384", [OLD_GENERATION_VARIABLE]: "0.75", [PURGE_DELAY_VARIABLE]: "1000", [HEAP_GROWTH_VARIABLE]: "1" };

/**
 * A C library whose limits are given and whose exec is recorded (a real one would replace the test
 * runner). Unprivileged, as setrlimit is: the soft value may rise to the hard one, the hard one not.
 */
function fakeLibc(limit: { soft: number; hard: number }, privileged = false) {
  const execs: Array<{ path: string; argv: readonly string[]; env: Readonly<Record<string, string | undefined>> }> = [];
  const libc: Libc = {
    openFileLimit: () => ({ ...limit }),
    setOpenFileLimit(soft, hard) {
      if (soft > hard || (hard > limit.hard && !privileged)) return false;
      limit.soft = soft;
      limit.hard = hard;
      return true;
    },
    exec: (path, argv, env) => void execs.push({ path, argv, env }),
  };
  return { libc, execs, limit };
}

describe("sizeProcess", () => {
  test("the pool and the collector already set and files enough: no exec, one line", () => {
    const { libc, execs } = fakeLibc({ soft: 1024, hard: 1_048_576 });
    const sizing = sizeProcess(16_384, libc, SIZED);
    expect(execs).toEqual([]);
    expect(sizing).toEqual({ info: "routelane: up to 16384 upstream calls at once, open-file limit 1048576", warnings: [] });
  });

  test("the pool unsized: the process is replaced by itself with the variable set, the rest of the environment kept", () => {
    const { libc, execs } = fakeLibc({ soft: 1_048_576, hard: 1_048_576 });
    sizeProcess(16_384, libc, { PATH: "/usr/bin", [FETCH_POOL_VARIABLE]: "256" });
    expect(execs).toHaveLength(1);
    expect(execs[0]!.path).toBe(process.execPath);
    expect(execs[0]!.argv[0]).toBe(process.execPath);
    expect(execs[0]!.env).toEqual({ PATH: "/usr/bin", ...SIZED });
  });

  test("the pool sized but the collector not: replaced by itself with the collector's setting added, nothing said", () => {
    const { libc, execs } = fakeLibc({ soft: 1_048_576, hard: 1_048_576 });
    const sizing = sizeProcess(16_384, libc, { PATH: "/usr/bin", [FETCH_POOL_VARIABLE]: "16384" });
    expect(execs.map((exec) => exec.env)).toEqual([{ PATH: "/usr/bin", ...SIZED }]);
    expect(sizing.warnings).toEqual([]);
  });

  test("the pool and the collector sized but the purge delay not: replaced by itself with it added", () => {
    const { libc, execs } = fakeLibc({ soft: 1_048_576, hard: 1_048_576 });
    sizeProcess(16_384, libc, { [FETCH_POOL_VARIABLE]: "16384", [OLD_GENERATION_VARIABLE]: "0.75" });
    expect(execs.map((exec) => exec.env)).toEqual([SIZED]);
  });

  test("everything sized but the heap growth: replaced by itself with it added", () => {
    const { libc, execs } = fakeLibc({ soft: 1_048_576, hard: 1_048_576 });
    const { [HEAP_GROWTH_VARIABLE]: _growth, ...rest } = SIZED;
    sizeProcess(16_384, libc, rest);
    expect(execs.map((exec) => exec.env)).toEqual([SIZED]);
  });

  test("an operator's own collector setting, purge delay and heap growth are kept", () => {
    const own = { [OLD_GENERATION_VARIABLE]: "0.5", [PURGE_DELAY_VARIABLE]: "100", [HEAP_GROWTH_VARIABLE]: "3" };
    const { libc, execs } = fakeLibc({ soft: 1_048_576, hard: 1_048_576 });
    sizeProcess(16_384, libc, own);
    expect(execs.map((exec) => exec.env)).toEqual([{ [FETCH_POOL_VARIABLE]: "16384", ...own }]);
    const again = fakeLibc({ soft: 1_048_576, hard: 1_048_576 });
    sizeProcess(16_384, again.libc, { [FETCH_POOL_VARIABLE]: "16384", ...own });
    expect(again.execs).toEqual([]);
  });

  // Bun refuses to start on a BUN_JSC_ variable that names no option of its JSC: an upgrade that
  // dropped this one would stop every gateway at its exec.
  test("this Bun knows the collector and heap growth options: a process started with them runs", () => {
    const child = Bun.spawnSync([process.execPath, "-e", "console.log('ran')"], { env: { ...process.env, ...SIZED }, stdout: "pipe", stderr: "pipe" });
    expect({ code: child.exitCode, out: child.stdout.toString().trim(), err: child.stderr.toString() }).toEqual({ code: 0, out: "ran", err: "" });
  });

  // A Bun whose allocator no longer read this variable would lose the setting without a word.
  test("this Bun's allocator reads the purge delay from the environment", () => {
    const env = { ...process.env, MIMALLOC_VERBOSE: "1", [PURGE_DELAY_VARIABLE]: "1234" };
    const child = Bun.spawnSync([process.execPath, "-e", "0"], { env, stdout: "pipe", stderr: "pipe" });
    expect(child.exitCode).toBe(0);
    expect(`${child.stdout}${child.stderr}`).toMatch(/option 'purge_delay': 1234\b/);
  });

  test("an exec that fails leaves Bun's pool, said in one line", () => {
    const { libc } = fakeLibc({ soft: 1_048_576, hard: 1_048_576 });
    const sizing = sizeProcess(16_384, libc, {});
    expect(sizing.info).toBe("routelane: up to 256 upstream calls at once, open-file limit 1048576");
    expect(sizing.warnings).toEqual([
      `routelane: upstream calls held to 256 at once (could not restart with ${FETCH_POOL_VARIABLE}=16384); set it in the environment before start`,
    ]);
  });

  test("a hard limit too low for the streams: raised as far as it goes, and one line says how many it holds", () => {
    const { libc, limit } = fakeLibc({ soft: 1024, hard: 20_000 });
    const sizing = sizeProcess(16_384, libc, SIZED);
    expect(limit.soft).toBe(20_000);
    expect(sizing.warnings).toEqual([
      "routelane: open-file limit 20000 (hard 20000) holds about 9872 streams, fewer than server.maxUpstreamRequests 16384: raise the hard limit (ulimit -Hn, systemd LimitNOFILE=, docker --ulimit nofile=)",
    ]);
  });

  test("a privileged process raises its hard limit to what the streams need, and says nothing more", () => {
    const { libc, limit } = fakeLibc({ soft: 1024, hard: 20_000 }, true);
    const sizing = sizeProcess(16_384, libc, SIZED);
    expect(limit).toEqual({ soft: 33_024, hard: 33_024 });
    expect(sizing).toEqual({ info: "routelane: up to 16384 upstream calls at once, open-file limit 33024", warnings: [] });
  });

  test("under the CPU profiler: never replaced by itself; what it did not set is said, with the values to set", () => {
    const { libc, execs } = fakeLibc({ soft: 1_048_576, hard: 1_048_576 });
    const sizing = sizeProcess(16_384, libc, { PATH: "/usr/bin", [PURGE_DELAY_VARIABLE]: "100" }, ["--cpu-prof", "--cpu-prof-dir=/tmp/p"]);
    expect(execs).toEqual([]);
    expect(sizing.warnings).toEqual([
      `routelane: runtime tuning not applied (a restart under --cpu-prof can kill the process); set ${OLD_GENERATION_VARIABLE}=0.75 ${HEAP_GROWTH_VARIABLE}=1 in the environment before start`,
      `routelane: upstream calls held to 256 at once (could not restart with ${FETCH_POOL_VARIABLE}=16384: a restart under --cpu-prof can kill the process); set it in the environment before start`,
    ]);
    // Started with all of it set, as the bench starts a profiled gateway: nothing to say.
    expect(sizeProcess(16_384, libc, SIZED, ["--cpu-prof"])).toEqual({ info: "routelane: up to 16384 upstream calls at once, open-file limit 1048576", warnings: [] });
    expect(execs).toEqual([]);
  });

  test.skipIf(process.platform !== "linux")("a real process under --cpu-prof runs once and lives (a restart there died of the profiler's SIGPWR)", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routelane-cpu-prof-"));
    try {
      const script = join(dir, "size.ts");
      writeFileSync(
        script,
        `const { loadLibc } = await import(${JSON.stringify(`${import.meta.dir}/../../src/ops/load-libc.ts`)});
        const { sizeProcess } = await import(${JSON.stringify(`${import.meta.dir}/../../src/ops/size-process.ts`)});
        console.log("started");
        // Some work first, so the profiler has sampled before the decision.
        let sum = 0;
        for (let i = 0; i < 3e6; i++) sum += i % 7;
        console.log(JSON.stringify({ sum: sum > 0, sizing: sizeProcess(64, loadLibc()) }));`,
      );
      const env: Record<string, string | undefined> = { ...process.env };
      for (const name of Object.keys(SIZED)) delete env[name];
      const child = Bun.spawn([process.execPath, "--cpu-prof", `--cpu-prof-dir=${join(dir, "prof")}`, script], { env, stdout: "pipe", stderr: "pipe" });
      const [out, code] = await Promise.all([new Response(child.stdout).text(), child.exited]);
      expect(code).toBe(0);
      const lines = out.trim().split("\n");
      expect(lines.filter((line) => line === "started")).toHaveLength(1);
      const { sizing } = JSON.parse(lines.at(-1)!) as { sizing: { warnings: string[] } };
      expect(sizing.warnings.join("\n")).toContain("a restart under --cpu-prof can kill the process");
      expect(readdirSync(join(dir, "prof")).filter((name) => name.endsWith(".cpuprofile"))).toHaveLength(1);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test("no C library to call: both said, nothing set", () => {
    const sizing = sizeProcess(16_384, "not on Linux (darwin)", {});
    expect(sizing.warnings).toEqual([
      "routelane: open-file limit not checked: not on Linux (darwin)",
      `routelane: upstream calls held to 256 at once (could not restart with ${FETCH_POOL_VARIABLE}=16384: not on Linux (darwin)); set it in the environment before start`,
    ]);
  });

  test.skipIf(process.platform !== "linux")("the real C library reads this process's open-file limit as /proc shows it", () => {
    const libc = loadLibc();
    if (typeof libc === "string") throw new Error(libc);
    const line = readFileSync("/proc/self/limits", "utf8")
      .split("\n")
      .find((l) => l.startsWith("Max open files"))!;
    const [soft, hard] = line.split(/\s{2,}/).slice(1, 3).map(Number);
    expect(libc.openFileLimit()).toEqual({ soft: soft!, hard: hard! });
  });

  test.skipIf(process.platform !== "linux")("the real C library sets both values (in a child: lowering is allowed to anyone, and this runner keeps its own)", async () => {
    const script = `
      const { loadLibc } = await import(${JSON.stringify(`${import.meta.dir}/../../src/ops/load-libc.ts`)});
      const libc = loadLibc();
      const { hard } = libc.openFileLimit();
      const ok = libc.setOpenFileLimit(hard - 2, hard - 1);
      console.log(JSON.stringify({ ok, hard, now: libc.openFileLimit(), proc: require("node:fs").readFileSync("/proc/self/limits", "utf8").split("\\n").find((l) => l.startsWith("Max open files")) }));
    `;
    const child = Bun.spawn([process.execPath, "-e", script], { stdout: "pipe", stderr: "inherit" });
    const out = JSON.parse(await new Response(child.stdout).text()) as { ok: boolean; hard: number; now: { soft: number; hard: number }; proc: string };
    expect(out.ok).toBe(true);
    expect(out.now).toEqual({ soft: out.hard - 2, hard: out.hard - 1 });
    expect(out.proc.split(/\s{2,}/).slice(1, 3).map(Number)).toEqual([out.hard - 2, out.hard - 1]);
  });
});

describe("tuneRuntime", () => {
  test("without the runtime tuning: replaced by itself with it added, the rest of the environment kept", () => {
    const { libc, execs } = fakeLibc({ soft: 1024, hard: 1024 });
    tuneRuntime(libc, { PATH: "/usr/bin", [PURGE_DELAY_VARIABLE]: "100" });
    expect(execs.map((exec) => exec.env)).toEqual([{ PATH: "/usr/bin", [OLD_GENERATION_VARIABLE]: "0.75", [PURGE_DELAY_VARIABLE]: "100", [HEAP_GROWTH_VARIABLE]: "1" }]);
    expect(execs[0]!.path).toBe(process.execPath);
  });

  test("with all set, or no C library: nothing happens", () => {
    const { libc, execs } = fakeLibc({ soft: 1024, hard: 1024 });
    tuneRuntime(libc, { [OLD_GENERATION_VARIABLE]: "0.5", [PURGE_DELAY_VARIABLE]: "100", [HEAP_GROWTH_VARIABLE]: "2" });
    expect(execs).toEqual([]);
    expect(() => tuneRuntime("not on Linux (darwin)", {})).not.toThrow();
  });
});
