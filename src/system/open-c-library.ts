import { dlopen, type FFIFunction } from "bun:ffi";

/** The names the C library goes by: glibc, then musl (Alpine). */
const NAMES = ["libc.so.6", `libc.musl-${process.arch === "arm64" ? "aarch64" : "x86_64"}.so.1`];

/**
 * The C library's `symbols` through bun:ffi, for the few calls Bun has no API for; or why they
 * cannot be had (not Linux, or no glibc/musl found), for the caller to say in one line.
 */
export function openCLibrary<const S extends Record<string, FFIFunction>>(symbols: S): ReturnType<typeof dlopen<S>>["symbols"] | string {
  if (process.platform !== "linux") return `not on Linux (${process.platform})`;
  for (const name of NAMES) {
    try {
      return dlopen(name, symbols).symbols;
    } catch {
      // The next name.
    }
  }
  return "no C library found to call (glibc libc.so.6 or musl)";
}
