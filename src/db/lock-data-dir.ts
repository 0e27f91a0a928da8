import { FFIType, read } from "bun:ffi";
import { closeSync, constants, ftruncateSync, openSync, readFileSync, writeSync } from "node:fs";
import { join } from "node:path";
import { openCLibrary } from "../system/open-c-library.ts";

/** The file whose lock says a process owns the data dir; it holds that process's pid. */
const DATA_DIR_LOCK_FILE = "routelane.lock";

const LOCK_EX = 2;
const LOCK_NB = 4;
/** flock's errno when another open file holds the lock (EWOULDBLOCK = EAGAIN on Linux). */
const EWOULDBLOCK = 11;

/** A data dir a second process tried to open while one had it. */
export class DataDirInUseError extends Error {
  override readonly name = "DataDirInUseError";
}

/**
 * Takes `<dataDir>/routelane.lock` with flock(2) for as long as the database is open: PGlite has no
 * server of its own to keep a second process out, and two processes on one data dir (a forgotten
 * gateway on another port) each cache and write its pages as if alone, which corrupts it. The kernel
 * drops the lock with the process, so a crash leaves nothing stale. Where flock cannot be called
 * (not Linux) or the file system refuses locks, the dir opens unlocked, as before.
 */
export function lockDataDir(dataDir: string): () => void {
  const libc = openCLibrary({
    flock: { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 },
    __errno_location: { args: [], returns: FFIType.ptr },
  });
  const path = join(dataDir, DATA_DIR_LOCK_FILE);
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o600);
  if (typeof libc !== "string" && libc.flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const errno = read.i32(libc.__errno_location()!, 0);
    if (errno === EWOULDBLOCK) {
      const owner = readFileSync(path, "utf8").trim();
      closeSync(fd);
      throw new DataDirInUseError(
        `data dir ${dataDir} is in use by another process${owner ? ` (pid ${owner})` : ""}: one gateway owns an embedded database; stop that one, give this one its own ROUTELANE_DATA_DIR, or run both on Postgres (DATABASE_URL)`,
      );
    }
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  return () => closeSync(fd);
}
