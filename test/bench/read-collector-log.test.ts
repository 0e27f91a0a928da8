import { expect, test } from "bun:test";
import { createChildGroup } from "../../src/bench/child-group.ts";
import { busiestBetween, COLLECTOR_LOG_ENV, createCollectorLog } from "../../src/bench/read-collector-log.ts";

// Lines as a gateway under the bench's JSON load wrote them (BUN_JSC_logGC=1, Bun 1.4.5), one eden
// collection and one full one, with a line of the gateway's own between.
const LOG = [
  "Requesting GC because bytes allocated this cycle: 11665757 exceed bytes allowed: 11649770 normal bytes: 11493715 oversized bytes: 172042 last oversized: 86021",
  "[GC<0x22120b9c118>: START M 25332kb => EdenCollection, a=0kb hf=0.000 mu=0.600 v=0kb (C:0 M:0 P1:0) o=27 b=155 i#1:N<CsMsrShDMsm(180)SrbBcs> 11+180 p=0.989136ms (max 15.859910)...]",
  "[GC<0x22120b9c118>: M a=34kb hf=0.002 mu=0.599 v=5379kb (C:311 M:0 P1:5068) o=17 b=29 i#2:N<WsOJw>Pbc 267+23 => 12565kb, p=1.150396ms (max 15.859910), cycle 2.342012ms END]",
  "GC END!",
  "[GC<0x22120b9c118>: epilogue 0.018297ms]",
  "routelane: a line of the gateway's own",
  "Requesting GC because bytes allocated this cycle: 11689624 exceed bytes allowed: 11673670 normal bytes: 11517582 oversized bytes: 172042 last oversized: 86021",
  "[GC<0x22120b9c118>: START M 25960kb => FullCollection, a=0kb hf=0.000 mu=0.600 v=0kb (C:0 M:0 P1:0) o=0 b=110 i#1:N<CsMsrShDMsm(0)SrbBcs> 17+0 p=1.055745ms (max 15.859910)...]",
  "[GC<0x22120b9c118>: M a=914kb hf=0.128 mu=0.523 v=603kb (C:603 M:0 P1:0) o=0 b=16 0+2 p=0.874417ms (max 15.859910)...]",
  "[GC<0x22120b9c118>: M a=1416kb => 11381kb, p=3.943916ms (max 15.859910), cycle 12.171653ms END]",
  "GC END!",
  "",
].join("\n");

test("counts each collection by its kind, every stop it timed and what its cycle allocated, and passes the other lines on", () => {
  const bytes = Buffer.from(LOG);
  // Cut anywhere, in the middle of lines and of numbers: the same count.
  for (const cuts of [[], [7], [130, 131, 400], [200, 533, 534, 1100, 1400]]) {
    const log = createCollectorLog();
    let kept = "";
    let from = 0;
    for (const cut of [...cuts, bytes.length]) {
      kept += Buffer.from(log.read(bytes.subarray(from, cut))).toString();
      from = cut;
    }
    expect(log.heaps()).toEqual(new Map([["0x22120b9c118", { eden: 1, full: 1, stoppedMs: 0.989136 + 1.150396 + 1.055745 + 0.874417 + 3.943916, allocatedBytes: 11665757 + 11689624 }]]));
    expect(kept).toBe("routelane: a line of the gateway's own\n");
  }
});

test("a Bun process started with the bench's environment logs its collections, and the child group keeps the rest of its stderr", async () => {
  const group = createChildGroup();
  const log = createCollectorLog();
  const script = "const keep = []; for (let i = 0; i < 3; i++) { for (let j = 0; j < 1e5; j++) keep.push({ j }); Bun.gc(true); } console.error('done', keep.length);";
  const child = group.spawn("collector", [process.execPath, "-e", script], { ...process.env, ...COLLECTOR_LOG_ENV }, { stderr: log.read });
  await child.exited;
  await child.drained;
  const main = busiestBetween(new Map(), log.heaps())!;
  expect(main.full).toBeGreaterThanOrEqual(3);
  expect(main.stoppedMs).toBeGreaterThan(0);
  expect(child.output()).toContain("done 300000");
  expect(child.output()).not.toContain("[GC<");
  await group.stopAll();
}, 30_000);

test("a Worker's heap is counted apart, and a pass is judged by the heap that collected most in it", () => {
  const log = createCollectorLog();
  const main = "0x22120b9c118";
  const worker = "0x22127900118";
  const collection = (heap: string, kind: "Eden" | "Full", allocated: number, stop: number) =>
    `Requesting GC because bytes allocated this cycle: ${allocated} exceed bytes allowed: 1\n[GC<${heap}>: START M 100kb => ${kind}Collection, a=0kb p=${stop}ms (max 1)...]\n[GC<${heap}>: epilogue 0.01ms]\n`;
  log.read(Buffer.from(collection(worker, "Full", 500, 2) + collection(main, "Eden", 1000, 1)));
  const before = log.heaps();
  log.read(Buffer.from(collection(main, "Eden", 1000, 1) + collection(worker, "Eden", 300, 4) + collection(main, "Full", 2000, 3)));
  expect(log.heaps().get(worker)).toEqual({ eden: 1, full: 1, stoppedMs: 6, allocatedBytes: 800 });
  expect(busiestBetween(before, log.heaps())).toEqual({ eden: 1, full: 1, stoppedMs: 4, allocatedBytes: 3000 });
  expect(busiestBetween(before, before)).toEqual({ eden: 0, full: 0, stoppedMs: 0, allocatedBytes: 0 });
  expect(busiestBetween(new Map(), new Map())).toBeUndefined();
});
