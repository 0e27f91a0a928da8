import type { Libc } from "./load-libc.ts";

/** Bun sizes its fetch pool from this variable once, at process start; unset it is 256. */
const FETCH_POOL_VARIABLE = "BUN_CONFIG_MAX_HTTP_REQUESTS";
const BUN_DEFAULT_FETCH_POOL = 256;
/**
 * JSC's collector: after an eden collection, the next is a full one when the room left for new
 * objects is under this fraction of the heap's limit. A full collection leaves that room at
 * `growth / (1 + growth)` of the limit (a half, with HEAP_GROWTH below), so at this value a full
 * collection follows every eden one, and what requests in flight promoted never piles up. (With
 * JSC's default of 1/3, and its default growth, the heap reached 70-80 MB for 15-25 MB live under
 * the bench's load on Postgres + Redis, and the process peaked at 171-192 MB; at 0.75, 132-139.)
 * A value under a half lets eden collections run on between full ones, which big bodies and long
 * streams would like: at 0.4 (a full collection once eden ones promoted half of what the last
 * full one kept) a 100 KB body cost 749 against 848 µs of CPU and 1 MB 3333 against 3741 (same
 * rounds), the 2,000-event stream 1.64 against 1.78 µs an event beyond the bare proxy (two runs).
 * But after a burst of long streams the heap stayed large: the next pass of small requests peaked
 * at 167-187 MB against 129 MB here, and at 189 MB with 0.45. Measured again on a later VM: the
 * whole `bun run bench` on Postgres + Redis peaked at 148 MB at 0.4 against 143 MB here (target
 * 150), for 100 KB bodies 15-21% cheaper and the rest within noise (`--baseline . --baseline-env
 * BUN_JSC_minEdenToOldGenerationRatio=0.4`, 5 and 7 rounds). Set only where the environment does
 * not set it already.
 */
const OLD_GENERATION_VARIABLE = "BUN_JSC_minEdenToOldGenerationRatio";
const OLD_GENERATION_RATIO = "0.75";
/**
 * JSC's heap growth on a host with 16 GiB of RAM or more (its "aggressive" mode): after a full
 * collection the heap may grow to about (1 + this) times what survived; JSC's default is 3, so
 * four times, where a smaller host gets two. At 1 the gateway's heap grows alike on every host.
 * Bench on a 24 GiB VM, Postgres + Redis, same rounds (`--baseline . --baseline-env
 * BUN_JSC_heapGrowthMaxIncrease=1`, against 3): peak RSS under load 120-126 against 132-161 MB;
 * CPU a request +4% on small requests (8 rounds: JSON 323 against 311 µs, stream 492 against
 * 471), +4% to +32% on big bodies (5 rounds: 1 MB 6049 against 5814 µs, 1 MB with images 4676
 * against 3529), the same p50. Set only where the environment does not.
 */
const HEAP_GROWTH_VARIABLE = "BUN_JSC_heapGrowthMaxIncrease";
const HEAP_GROWTH = "1";
/**
 * Bun's allocator (mimalloc) hands memory freed for this long back to the system (madvise), and the
 * next allocation there faults it in again; Bun's default is 100 ms. A big body or a long stream
 * allocates and frees megabytes a request, so at 100 ms the process spent much of its CPU in that
 * round trip (kernel time, page faults). Bench, same rounds, this value against 100 (`bun run bench
 * --sections paths,bodies,long-stream --baseline . --baseline-env MIMALLOC_PURGE_DELAY=100`): 1 MB
 * body 10.0 against 18.8 ms of CPU a request, 100 KB 1.27 against 2.15, the 2,000-event stream 2.40
 * against 3.79 µs an event beyond the bare proxy, small requests alike, peak RSS alike (258-271
 * against 255-260 MB; on Postgres + Redis 152-155 against 153-159 MB). Never purging halves the
 * 1 MB body again but doubles the peak (575 MB). Set only where the environment does not.
 */
const PURGE_DELAY_VARIABLE = "MIMALLOC_PURGE_DELAY";
const PURGE_DELAY_MS = "1000";
/** Descriptors besides the streams' two sockets each: listeners, database, logs, Redis, files. */
const RESERVED_FILES = 256;

/**
 * Under Bun's CPU profiler (`--cpu-prof`) the process never replaces itself: the profiler suspends
 * the main thread with SIGPWR every sample, and one pending as the new image starts (every handler
 * reset to the default, which for SIGPWR is to die) killed the gateway at start in 3 of 12 tries,
 * and a chain of 20 execs under it every time in five. Ignoring the signal across the exec makes
 * the runtime print a warning at every start instead.
 */
const PROFILER_FLAG = "--cpu-prof";

/**
 * The environment the gateway runs under, sized for `maxUpstreamRequests` open upstream calls:
 * what `sizeProcess` restarts with, and what a launcher sets for it to start as it is (the
 * bench's gateway under the CPU profiler).
 */
export function tunedEnvironment(maxUpstreamRequests: number, env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return { [FETCH_POOL_VARIABLE]: String(maxUpstreamRequests), ...runtimeTuning(env) };
}

/** Why this process cannot replace itself, or undefined when it can. */
function cannotRestart(libc: Libc | string, execArgv: readonly string[]): string | undefined {
  if (typeof libc === "string") return libc;
  return execArgv.some((arg) => arg.startsWith(PROFILER_FLAG)) ? "a restart under --cpu-prof can kill the process" : undefined;
}

/**
 * The runtime's own tuning start-up adds to the environment (the collector, the heap's growth and
 * the allocator), each where `env` does not set it: what the gateway runs under, and the bench's
 * bare proxy with it.
 */
export function runtimeTuning(env: Readonly<Record<string, string | undefined>>): Record<string, string> {
  return {
    [OLD_GENERATION_VARIABLE]: env[OLD_GENERATION_VARIABLE] ?? OLD_GENERATION_RATIO,
    [PURGE_DELAY_VARIABLE]: env[PURGE_DELAY_VARIABLE] ?? PURGE_DELAY_MS,
    [HEAP_GROWTH_VARIABLE]: env[HEAP_GROWTH_VARIABLE] ?? HEAP_GROWTH,
  };
}

/**
 * Replaces this process with itself under `runtimeTuning` where the environment lacks any of it
 * (execve, same pid): for the bench, whose in-process parts should run as the gateway does.
 * Returns when nothing was needed, or when the exec could not be made.
 */
export function tuneRuntime(libc: Libc | string, env: Readonly<Record<string, string | undefined>> = process.env, execArgv: readonly string[] = process.execArgv): void {
  if (typeof libc === "string" || cannotRestart(libc, execArgv) !== undefined || !lacksTuning(env)) return;
  const command = ownCommand();
  libc.exec(command[0]!, command, { ...env, ...runtimeTuning(env) });
}

/** Whether `env` leaves any of `runtimeTuning` unset (start-up then execs itself under it). */
function lacksTuning(env: Readonly<Record<string, string | undefined>>): boolean {
  return Object.keys(runtimeTuning(env)).some((name) => env[name] === undefined);
}

/** What start-up says about the process's limits: one line, plus one for each limit it could not set. */
export interface ProcessSizing {
  readonly info: string;
  readonly warnings: readonly string[];
}

/** This process's own command line, for exec: a compiled executable carries its entry point inside. */
function ownCommand(): readonly string[] {
  const compiled = process.argv[1]?.startsWith("/$bunfs/") ?? false;
  return compiled ? [process.execPath, ...process.argv.slice(2)] : [process.execPath, ...process.execArgv, ...process.argv.slice(1)];
}

/**
 * Sizes the process for `maxUpstreamRequests` open upstream calls before anything starts: the
 * open-file limit goes to its hard limit (two sockets per stream; the hard limit itself is raised
 * when the process may), and Bun's fetch pool, JSC's collector and heap growth settings and the
 * allocator's purge delay, which are read from the environment only at start, are set by
 * replacing this process with itself under those variables (execve: same pid, so a supervisor's
 * signals still reach it). Returns only when no exec was needed, or when it failed; what could not
 * be set comes back as one line each.
 */
export function sizeProcess(
  maxUpstreamRequests: number,
  libc: Libc | string,
  env: Readonly<Record<string, string | undefined>> = process.env,
  execArgv: readonly string[] = process.execArgv,
): ProcessSizing {
  const warnings: string[] = [];
  let files = "open-file limit unknown";
  if (typeof libc === "string") {
    warnings.push(`routelane: open-file limit not checked: ${libc}`);
  } else {
    let { soft, hard } = libc.openFileLimit();
    const needed = maxUpstreamRequests * 2 + RESERVED_FILES;
    // A privileged process (CAP_SYS_RESOURCE) may raise its hard limit too; otherwise the soft one goes as far as the hard.
    if (hard < needed && libc.setOpenFileLimit(needed, needed)) soft = hard = needed;
    if (soft < hard && libc.setOpenFileLimit(hard, hard)) soft = hard;
    const streams = Math.max(0, Math.floor((soft - RESERVED_FILES) / 2));
    files = `open-file limit ${soft}`;
    if (streams < maxUpstreamRequests) {
      warnings.push(
        `routelane: open-file limit ${soft} (hard ${hard}) holds about ${streams} streams, fewer than server.maxUpstreamRequests ${maxUpstreamRequests}: raise the hard limit (ulimit -Hn, systemd LimitNOFILE=, docker --ulimit nofile=)`,
      );
    }
  }

  const wanted = String(maxUpstreamRequests);
  const poolSized = env[FETCH_POOL_VARIABLE] === wanted;
  const restartless = cannotRestart(libc, execArgv);
  if ((!poolSized || lacksTuning(env)) && typeof libc !== "string" && restartless === undefined) {
    const command = ownCommand();
    libc.exec(command[0]!, command, { ...env, ...tunedEnvironment(maxUpstreamRequests, env) });
  }
  // Without an exec the collector keeps JSC's default, which is said nowhere (it costs memory, not
  // a limit), unless it is a profile: one taken without the tuning is not of the gateway as it runs.
  if (restartless !== undefined && typeof libc !== "string" && lacksTuning(env)) {
    const missing = Object.entries(runtimeTuning(env)).filter(([name]) => env[name] === undefined);
    warnings.push(`routelane: runtime tuning not applied (${restartless}); set ${missing.map(([name, value]) => `${name}=${value}`).join(" ")} in the environment before start`);
  }
  if (!poolSized) {
    const pool = Number(env[FETCH_POOL_VARIABLE]) || BUN_DEFAULT_FETCH_POOL;
    warnings.push(
      `routelane: upstream calls held to ${pool} at once (could not restart with ${FETCH_POOL_VARIABLE}=${wanted}${restartless !== undefined ? `: ${restartless}` : ""}); set it in the environment before start`,
    );
    return { info: `routelane: up to ${pool} upstream calls at once, ${files}`, warnings };
  }
  return { info: `routelane: up to ${wanted} upstream calls at once, ${files}`, warnings };
}
