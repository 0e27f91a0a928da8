import { afterAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createChildGroup } from "../../src/bench/child-group.ts";
import { jitDumpEnvironment, readPerfProfile, startPerfRecord } from "../../src/bench/record-perf.ts";

// CI installs perf (Debian's linux-perf) and requires this test; elsewhere it runs where perf is on PATH.
const PERF_REQUIRED = process.env.ROUTELANE_REQUIRE_PERF === "1";
const hasPerf = Bun.which("perf") !== null;
if (!hasPerf && !PERF_REQUIRED) console.warn("perf test skipped: perf is not on PATH (apt-get install -y linux-perf; CI installs it and requires it)");

const dir = mkdtempSync(join(tmpdir(), "routelane-perf-test-"));
const group = createChildGroup();
const spinners: Bun.Subprocess[] = [];
afterAll(async () => {
  for (const spinner of spinners) spinner.kill("SIGKILL");
  await group.stopAll();
  rmSync(dir, { recursive: true, force: true });
});

// A process whose main thread spends nearly all its time in one named function (its loop compiled
// within milliseconds of starting; a callee would be inlined into its caller and named by it).
const SPINNER = `
function spinOnPurpose() {
  let x = 0;
  for (let i = 0; ; i++) {
    x = (x * 31 + i) | 0;
    if (i === 1e6) console.log("ready");
  }
}
spinOnPurpose();
`;

test.skipIf(!hasPerf && !PERF_REQUIRED)(
  "a recording of a running process names the JavaScript function its main thread was in",
  async () => {
    const child = Bun.spawn([process.execPath, "-e", SPINNER], { env: { ...process.env, ...jitDumpEnvironment(dir) }, stdout: "pipe", stderr: "inherit" });
    spinners.push(child);
    const lines = child.stdout.pipeThrough(new TextDecoderStream()).getReader();
    for (let seen = ""; !seen.includes("ready"); ) {
      const { value, done } = await lines.read();
      if (done) throw new Error("the spinner exited before it was ready");
      seen += value;
    }
    const file = join(dir, "spinner.perf.data");
    const recording = startPerfRecord(group, child.pid, file);
    await Bun.sleep(1000);
    expect(await recording.stop()).toEqual({});
    child.kill();
    await child.exited;
    const attribution = await readPerfProfile(file, child.pid, dir);
    expect(attribution.mainSamples).toBeGreaterThan(100);
    expect(attribution.functions[0]!.name).toBe("spinOnPurpose");
    expect(attribution.functions[0]!.samples / attribution.mainSamples).toBeGreaterThan(0.8);
  },
  20_000,
);
