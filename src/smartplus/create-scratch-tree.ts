import { closeSync, constants, fchmodSync, fstatSync, lstatSync, mkdirSync, openSync, readSync, symlinkSync, writeSync } from "node:fs";
import { join } from "node:path";
import { openTreeFile } from "./open-tree-file.ts";

export type TreeEntryKind = "directory" | "file" | "symlink" | "other";

/**
 * Where an archive is unpacked, path by path (relative, `/`-separated, already checked as text).
 * The caller decides from `kind` what may be created; the tree only ever creates one path
 * component at a time and never follows a link doing it.
 */
export interface ScratchTree {
  /** False for the in-memory tree of the upload's check: no bytes are kept, files read back empty. */
  readonly keepsBytes: boolean;
  /** What is at `path` now, never following a link; null when nothing is. */
  kind(path: string): TreeEntryKind | null;
  /** One folder, in a parent that exists. */
  makeDirectory(path: string): void;
  /** A regular file (0644, or 0755 when executable): a new one, or over one this tree wrote. */
  writeFile(path: string, data: Uint8Array, executable: boolean): void;
  /** A symbolic link, stored as it is and never followed. */
  makeSymlink(path: string, target: string): void;
  /** The bytes of a regular file this tree wrote (a hard link's source). */
  readFile(path: string): Buffer;
}

const { O_WRONLY, O_CREAT, O_EXCL, O_TRUNC, O_NOFOLLOW } = constants;

function kindOf(stat: { isDirectory(): boolean; isFile(): boolean; isSymbolicLink(): boolean }): TreeEntryKind {
  return stat.isSymbolicLink() ? "symlink" : stat.isDirectory() ? "directory" : stat.isFile() ? "file" : "other";
}

/**
 * The tree on disk under `root`, every check made there with `lstat`; files are opened with
 * `O_NOFOLLOW` (and `O_EXCL` when new), and one it wrote is known by its inode, so a file read
 * back or written over is this tree's own and nothing a link could name.
 */
export function createDiskTree(root: string): ScratchTree {
  const written = new Map<string, string>();
  const identity = (stat: { dev: number; ino: number }): string => `${stat.dev}:${stat.ino}`;
  const full = (path: string): string => join(root, path);
  return {
    keepsBytes: true,
    kind(path) {
      const stat = lstatSync(full(path), { throwIfNoEntry: false });
      return stat ? kindOf(stat) : null;
    },
    makeDirectory(path) {
      mkdirSync(full(path), { mode: 0o755 });
    },
    writeFile(path, data, executable) {
      const own = written.get(path);
      const fd = openSync(full(path), O_WRONLY | O_NOFOLLOW | (own ? O_TRUNC : O_CREAT | O_EXCL), 0o600);
      try {
        const stat = fstatSync(fd);
        if (!stat.isFile() || (own !== undefined && own !== identity(stat))) throw new Error(`${path} is not a file this extraction wrote`);
        for (let at = 0; at < data.byteLength; ) at += writeSync(fd, data, at);
        // Exactly these bits: never setuid/setgid/sticky, whatever the archive or umask says.
        fchmodSync(fd, executable ? 0o755 : 0o644);
        written.set(path, identity(stat));
      } finally {
        closeSync(fd);
      }
    },
    makeSymlink(path, target) {
      symlinkSync(target, full(path));
    },
    readFile(path) {
      const opened = openTreeFile(root, path);
      if (!opened) throw new Error(`${path} is not a regular file of the tree`);
      try {
        if (written.get(path) !== identity(opened.stat)) throw new Error(`${path} is not a file this extraction wrote`);
        const data = Buffer.alloc(opened.stat.size);
        for (let at = 0; at < data.byteLength; ) {
          const read = readSync(opened.fd, data, at, data.byteLength - at, at);
          if (read === 0) break;
          at += read;
        }
        return data;
      } finally {
        closeSync(opened.fd);
      }
    },
  };
}

/** The same decisions without a disk: kinds only, for checking an upload before it is queued. */
export function createCountingTree(): ScratchTree {
  const kinds = new Map<string, TreeEntryKind>();
  return {
    keepsBytes: false,
    kind: (path) => kinds.get(path) ?? null,
    makeDirectory: (path) => void kinds.set(path, "directory"),
    writeFile: (path) => void kinds.set(path, "file"),
    makeSymlink: (path) => void kinds.set(path, "symlink"),
    readFile: () => Buffer.alloc(0),
  };
}
