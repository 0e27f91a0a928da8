import { describe, expect, test } from "bun:test";
import type { SoakPass, SoakResult, SoakSample } from "../../src/bench/run-soak.ts";
import { summarizeSoak } from "../../src/bench/summarize-soak.ts";

const MB = 1024 * 1024;

/** A soak of `minutes`, four 15 s passes a minute of 1,000 requests and 250 ms of CPU each, RSS read every second from `rssAt`. */
function soak(minutes: number, rssAt: (sec: number) => number, pass: Partial<SoakPass> = {}): SoakResult {
  const passes: SoakPass[] = [];
  for (let startSec = 0; startSec < minutes * 60; startSec += 15) {
    passes.push({ scenarioId: `soak/${startSec}`, startSec, requests: 1_000, errors: 0, cpuMs: 250, ...pass });
  }
  const samples: SoakSample[] = [];
  for (let atSec = 0; atSec <= minutes * 60; atSec++) samples.push({ atSec, rssBytes: rssAt(atSec) });
  return { minutes, passSec: 15, connections: 32, samples, passes };
}

describe("summarizeSoak", () => {
  test("minute by minute: the requests, errors and CPU of the passes that started in it, the RSS read in it", () => {
    const summary = summarizeSoak(soak(3, (sec) => (sec < 60 ? 100 : 200) * MB + (sec % 2) * MB));
    expect(summary.rows).toEqual([
      { minute: 1, requests: 4_000, errors: 0, cpuUsPerRequest: 250, rssMedianBytes: 100.5 * MB, rssMaxBytes: 101 * MB },
      // The sample at 180 s, the soak's very end, belongs to its last minute.
      { minute: 2, requests: 4_000, errors: 0, cpuUsPerRequest: 250, rssMedianBytes: 200.5 * MB, rssMaxBytes: 201 * MB },
      { minute: 3, requests: 4_000, errors: 0, cpuUsPerRequest: 250, rssMedianBytes: 200 * MB, rssMaxBytes: 201 * MB },
    ]);
    expect(summary.requests).toBe(12_000);
    expect(summary.peakRssBytes).toBe(201 * MB);
  });

  test("flat: growth up to a tenth from the minute after the fill to the last passes; the fill itself is not held against it", () => {
    // The first minute climbs from 50 to 300 MB (the stores filling), then the RSS stays.
    const flat = summarizeSoak(soak(10, (sec) => (sec < 60 ? 50 + sec * 4 : 300) * MB));
    expect(flat.settledRssBytes).toBe(300 * MB);
    expect(flat.endRssBytes).toBe(300 * MB);
    expect(flat.growth).toBe(0);
    expect(flat.flat).toEqual({ target: "last minute ≤ minute 2 + 10 %", pass: true });
  });

  test("a leak: the RSS climbing a little every minute fails", () => {
    // 200 MB, then 3 MB more every minute: +24 MB (12 %) from minute 2 to minute 10.
    const leaking = summarizeSoak(soak(10, (sec) => (200 + Math.floor(sec / 60) * 3) * MB));
    expect(leaking.growth).toBeCloseTo(24 / 203, 5);
    expect(leaking.flat.pass).toBe(false);
  });

  test("a soak with an error is not flat, whatever its memory did", () => {
    const failed = summarizeSoak(soak(3, () => 100 * MB, { errors: 1, firstError: "3 non-2xx, 0 socket errors" }));
    expect(failed.errors).toBe(12);
    expect(failed.firstError).toBe("3 non-2xx, 0 socket errors");
    expect(failed.flat.pass).toBe(false);
  });

  test("too short to judge: two minutes hold the fill and the minute after it, and no later one", () => {
    const short = summarizeSoak(soak(2, () => 100 * MB));
    expect(short.settledRssBytes).toBe(100 * MB);
    expect(short.endRssBytes).toBeUndefined();
    expect(short.flat.pass).toBeUndefined();
  });

  test("without procfs: no CPU and no RSS, nothing judged", () => {
    const summary = summarizeSoak({ ...soak(3, () => 0, { cpuMs: undefined }), samples: [] });
    expect(summary.rows[0]).toMatchObject({ cpuUsPerRequest: undefined, rssMedianBytes: undefined, rssMaxBytes: undefined });
    expect(summary.peakRssBytes).toBeUndefined();
    expect(summary.flat.pass).toBeUndefined();
  });
});
