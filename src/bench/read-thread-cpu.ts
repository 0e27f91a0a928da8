import { readdirSync, readFileSync } from "node:fs";
import { parseProcStatCpuMs } from "./parse-proc-stat-cpu.ts";

/**
 * What a thread of a Bun process does, told by its name: the main thread (JavaScript, the HTTP
 * server, the event loop), the collector's helpers (marking beside the main thread), the fetch
 * client's socket thread, Workers (the gateway's embedded database runs on one), the JIT's
 * compilers, and everything else (file I/O pool, allocator, threads that ended during the pass).
 */
export const THREAD_ROLES = ["main", "gc", "fetch", "worker", "jit", "other"] as const;
export type ThreadRole = (typeof THREAD_ROLES)[number];

/** CPU per role; a unit of the caller's (ms from procfs, µs per request in the report). */
export type ThreadCpu = Readonly<Record<ThreadRole, number>>;

/**
 * JSC's WebAssembly compiler thread ("… Worklist Helper Thread", of which Linux keeps the last 15
 * characters): it appears once wasm runs hot (the PGlite thread's database) and compiles it.
 */
const WASM_COMPILER = "t Helper Thread";

/** The role of a thread from its name (`/proc/<pid>/task/<tid>/comm`, at most 15 characters). */
function threadRole(comm: string, isMain: boolean): ThreadRole {
  if (isMain) return "main";
  if (comm.startsWith("HeapHelper")) return "gc";
  if (comm === "HTTP Client") return "fetch";
  if (comm === "Worker") return "worker";
  if (comm === "JITWorker" || comm === "JSCWarmUp" || comm === WASM_COMPILER) return "jit";
  return "other";
}

/** One look at a process: its total CPU and each live thread's, ms. */
export interface ThreadSnapshot {
  readonly totalMs: number;
  readonly threads: ReadonlyMap<number, { readonly role: ThreadRole; readonly ms: number }>;
}

/** The process's CPU and its threads', from procfs; undefined where there is none (or the process has gone). */
export function readThreadSnapshot(pid: number): ThreadSnapshot | undefined {
  let totalMs: number | undefined;
  let tids: string[];
  try {
    totalMs = parseProcStatCpuMs(readFileSync(`/proc/${pid}/stat`, "utf8"));
    tids = readdirSync(`/proc/${pid}/task`);
  } catch {
    return undefined;
  }
  if (totalMs === undefined) return undefined;
  const threads = new Map<number, { role: ThreadRole; ms: number }>();
  for (const tid of tids) {
    try {
      const ms = parseProcStatCpuMs(readFileSync(`/proc/${pid}/task/${tid}/stat`, "utf8"));
      const comm = readFileSync(`/proc/${pid}/task/${tid}/comm`, "utf8").trimEnd();
      if (ms !== undefined) threads.set(Number(tid), { role: threadRole(comm, Number(tid) === pid), ms });
    } catch {
      // The thread ended between the listing and the read: its time is in the process's total.
    }
  }
  return { totalMs, threads };
}

const zero = (): Record<ThreadRole, number> => ({ main: 0, gc: 0, fetch: 0, worker: 0, jit: 0, other: 0 });

/**
 * Each role's CPU between two looks, ms. A thread seen in both counts its difference, one that
 * started since counts all its time; whatever the threads do not explain (a thread that ended
 * between the looks takes its time out of the listing, not out of the process) goes to `other`,
 * so the roles add up to the process's own CPU over the interval, within procfs's 10 ms ticks
 * (each thread's time and the process's are rounded apart: `other` is never below 0).
 */
export function threadCpuBetween(before: ThreadSnapshot, after: ThreadSnapshot): ThreadCpu {
  const cpu = zero();
  let explained = 0;
  for (const [tid, now] of after.threads) {
    const spent = now.ms - (before.threads.get(tid)?.ms ?? 0);
    cpu[now.role] += spent;
    explained += spent;
  }
  cpu.other += Math.max(0, after.totalMs - before.totalMs - explained);
  return cpu;
}

/** Each role's CPU µs per request, from ms over `requests`. */
export function perRequestUs(cpu: ThreadCpu, requests: number): ThreadCpu {
  const out = zero();
  for (const role of THREAD_ROLES) out[role] = (cpu[role] * 1000) / requests;
  return out;
}
