import { FFIType, ptr } from "bun:ffi";
import { openCLibrary } from "../system/open-c-library.ts";

/** What start-up needs from the C library and Bun has no API for. */
export interface Libc {
  /** RLIMIT_NOFILE as it is now. */
  openFileLimit(): { soft: number; hard: number };
  /**
   * Sets RLIMIT_NOFILE; false when refused. Raising `hard` needs CAP_SYS_RESOURCE (root in most
   * containers); the soft value may go up to the hard one without it.
   */
  setOpenFileLimit(soft: number, hard: number): boolean;
  /** Replaces this process with `argv` under `env` (same pid, same signals' target); returns only on failure. */
  exec(path: string, argv: readonly string[], env: Readonly<Record<string, string | undefined>>): void;
}

/** RLIMIT_NOFILE on Linux (glibc and musl alike). */
const RLIMIT_NOFILE = 7;

/** A null-terminated array of C strings, and the buffers it points into (kept alive with it). */
function cStringArray(values: readonly string[]): { pointers: BigUint64Array; keep: Buffer[] } {
  const keep = values.map((value) => Buffer.from(`${value}\0`));
  const pointers = new BigUint64Array(values.length + 1);
  for (const [i, buffer] of keep.entries()) pointers[i] = BigInt(ptr(buffer));
  return { pointers, keep };
}

/**
 * The C library through bun:ffi, or why it cannot be had (not Linux, or no glibc/musl found):
 * start-up then says in one line what it could not set.
 */
export function loadLibc(): Libc | string {
  const lib = openCLibrary({
    getrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    setrlimit: { args: [FFIType.i32, FFIType.ptr], returns: FFIType.i32 },
    execve: { args: [FFIType.ptr, FFIType.ptr, FFIType.ptr], returns: FFIType.i32 },
  });
  if (typeof lib === "string") return lib;
  const { getrlimit, setrlimit, execve } = lib;
  const read = (): BigUint64Array => {
    const limit = new BigUint64Array(2);
    if (getrlimit(RLIMIT_NOFILE, ptr(limit)) !== 0) throw new Error("getrlimit(RLIMIT_NOFILE) failed");
    return limit;
  };
  return {
    openFileLimit() {
      const [soft = 0n, hard = 0n] = read();
      // RLIM_INFINITY reads as 2^64 - 1: beyond any count that matters here.
      return { soft: Number(soft > 1n << 40n ? 1n << 40n : soft), hard: Number(hard > 1n << 40n ? 1n << 40n : hard) };
    },
    setOpenFileLimit(soft, hard) {
      const limit = new BigUint64Array([BigInt(soft), BigInt(hard)]);
      return setrlimit(RLIMIT_NOFILE, ptr(limit)) === 0;
    },
    exec(path, argv, env) {
      const args = cStringArray(argv);
      const envp = cStringArray(Object.entries(env).flatMap(([name, value]) => (value === undefined ? [] : [`${name}=${value}`])));
      const file = Buffer.from(`${path}\0`);
      execve(ptr(file), ptr(args.pointers), ptr(envp.pointers));
    },
  };
}
