import { describe, expect, test } from "bun:test";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { perRequestUs, readThreadSnapshot, THREAD_ROLES, threadCpuBetween, type ThreadRole, type ThreadSnapshot } from "../../src/bench/read-thread-cpu.ts";

const snapshot = (totalMs: number, threads: ReadonlyArray<readonly [number, ThreadRole, number]>): ThreadSnapshot => ({
  totalMs,
  threads: new Map(threads.map(([tid, role, ms]) => [tid, { role, ms }])),
});

describe("threadCpuBetween", () => {
  test("each thread's difference goes to its role; the roles add up to the process's CPU", () => {
    const before = snapshot(1_000, [
      [1, "main", 600],
      [2, "gc", 100],
      [3, "fetch", 50],
    ]);
    const after = snapshot(1_500, [
      [1, "main", 900],
      [2, "gc", 180],
      [3, "fetch", 70],
    ]);
    expect(threadCpuBetween(before, after)).toEqual({ main: 300, gc: 80, fetch: 20, worker: 0, jit: 0, other: 100 });
  });

  test("a thread that started since counts all its time; one that ended leaves its time to `other`", () => {
    const before = snapshot(1_000, [
      [1, "main", 600],
      [7, "jit", 300],
    ]);
    // The JIT thread ran 40 ms more, then ended; a Worker started and ran 25 ms.
    const after = snapshot(1_165, [
      [1, "main", 700],
      [9, "worker", 25],
    ]);
    const cpu = threadCpuBetween(before, after);
    expect(cpu).toEqual({ main: 100, gc: 0, fetch: 0, worker: 25, jit: 0, other: 40 });
    expect(THREAD_ROLES.reduce((sum, role) => sum + cpu[role], 0)).toBe(165);
  });

  test("the process's time and its threads' are rounded apart: what they leave unexplained is never below 0", () => {
    const before = snapshot(1_000, [[1, "main", 990]]);
    const after = snapshot(1_100, [[1, "main", 1_100]]);
    expect(threadCpuBetween(before, after)).toMatchObject({ main: 110, other: 0 });
  });

  test("per request: µs from ms over the requests", () => {
    expect(perRequestUs({ main: 300, gc: 80, fetch: 20, worker: 0, jit: 0, other: 100 }, 10_000)).toEqual({ main: 30, gc: 8, fetch: 2, worker: 0, jit: 0, other: 10 });
  });
});

describe("readThreadSnapshot", () => {
  test.skipIf(!existsSync("/proc/self/task"))("reads this process: the main thread, and a Worker's CPU under `worker`", async () => {
    const before = readThreadSnapshot(process.pid)!;
    expect([...before.threads.values()].filter((t) => t.role === "main")).toHaveLength(1);
    // A Worker that does a fixed amount of work, about 370 ms of CPU on a 2-core VM (spinning for a
    // time would take less CPU whenever other work shares the core), then stays: a Worker whose
    // script has ended exits, and a thread that has gone is no longer listed (its time is `other`).
    const script = "let x = 0; for (let i = 0; i < 1e9; i++) x = (x + i) | 0; postMessage(x); setInterval(() => {}, 1000);";
    const worker = new Worker(URL.createObjectURL(new Blob([script], { type: "text/javascript" })));
    await new Promise<void>((resolve) => worker.addEventListener("message", () => resolve(), { once: true }));
    const after = readThreadSnapshot(process.pid)!;
    worker.terminate();
    const cpu = threadCpuBetween(before, after);
    expect(cpu.worker).toBeGreaterThanOrEqual(100);
    expect(after.totalMs - before.totalMs).toBeGreaterThanOrEqual(cpu.worker);
  });

  test.skipIf(!existsSync("/proc/self/task"))("names this process's threads by what they do: main, the fetch client, a Worker", async () => {
    const server = Bun.serve({ port: 0, fetch: () => new Response("ok") });
    const worker = new Worker(URL.createObjectURL(new Blob(["postMessage('up'); setInterval(() => {}, 1000);"], { type: "text/javascript" })));
    try {
      await new Promise<void>((resolve) => worker.addEventListener("message", () => resolve(), { once: true }));
      expect(await (await fetch(`http://127.0.0.1:${server.port}/`)).text()).toBe("ok");
      const roles = [...readThreadSnapshot(process.pid)!.threads.values()].map((t) => t.role);
      expect(roles.filter((role) => role === "main")).toHaveLength(1);
      expect(roles).toContain("fetch");
      expect(roles).toContain("worker");
    } finally {
      worker.terminate();
      server.stop(true);
    }
  });

  test.skipIf(!existsSync("/proc/self/task"))("counts the thread that compiles hot WebAssembly under jit", async () => {
    // (module (func (export "add") (param i32 i32) (result i32) local.get 0 local.get 1 i32.add))
    const bytes = new Uint8Array([0, 97, 115, 109, 1, 0, 0, 0, 1, 7, 1, 96, 2, 127, 127, 1, 127, 3, 2, 1, 0, 7, 7, 1, 3, 97, 100, 100, 0, 0, 10, 9, 1, 7, 0, 32, 0, 32, 1, 106, 11]);
    const { instance } = await WebAssembly.instantiate(bytes);
    const add = instance.exports.add as (a: number, b: number) => number;
    let sum = 0;
    for (let i = 0; i < 30_000_000; i++) sum = add(sum, 1) | 0;
    expect(sum).toBe(30_000_000);
    const compilers = readdirSync("/proc/self/task").filter((tid) => readFileSync(`/proc/self/task/${tid}/comm`, "utf8").trimEnd() === "t Helper Thread");
    expect(compilers.length).toBeGreaterThan(0);
    const threads = readThreadSnapshot(process.pid)!.threads;
    for (const tid of compilers) expect(threads.get(Number(tid))?.role).toBe("jit");
  });

  test("undefined for a process that does not exist", () => {
    expect(readThreadSnapshot(2 ** 22 + 12_345)).toBeUndefined();
  });
});
