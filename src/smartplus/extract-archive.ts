import { posix } from "node:path";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { extract as tarExtract, type Extract, type Header } from "tar-stream";
import { createCountingTree, createDiskTree, type ScratchTree } from "./create-scratch-tree.ts";

type Entry = Extract extends AsyncIterable<infer S> ? S : never;

/** A refused archive; the message is shown to the user as is. */
export class ArchiveError extends Error {
  override readonly name = "ArchiveError";
}

export interface ArchiveLimits {
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
}

/** What Linux takes: a path of 4095 bytes, a name of 255. */
const MAX_PATH_BYTES = 4095;
const MAX_NAME_BYTES = 255;

export interface ExtractedArchive {
  /** Regular files (hard-link copies too), in archive order, each once (relative, `/`-separated). */
  readonly paths: readonly string[];
  readonly bytes: number;
}

/**
 * The safe form of an entry name, or why it is refused: relative, no `..`, no NUL, not longer
 * than the file system takes, nothing empty. A leading `./` is dropped; a trailing `/` (folders) too.
 */
function checkEntryPath(name: string): { ok: true; path: string } | { ok: false; reason: string } {
  if (name.includes("\0")) return { ok: false, reason: `the archive holds a path with a NUL byte` };
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name) || name.startsWith("\\")) return { ok: false, reason: `the archive holds an absolute path: ${name}` };
  const parts = name.replaceAll("\\", "/").split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) return { ok: false, reason: `the archive holds a path that leaves the repository: ${name}` };
  if (parts.length === 0) return { ok: false, reason: "" };
  const path = parts.join("/");
  if (Buffer.byteLength(path) > MAX_PATH_BYTES || parts.some((part) => Buffer.byteLength(part) > MAX_NAME_BYTES)) return { ok: false, reason: `the archive holds a path too long to unpack: ${path.slice(0, 80)}…` };
  return { ok: true, path };
}

/** Where a symbolic link at `path` pointing at `target` lands, as text, or null when outside the root. */
function symlinkLanding(path: string, target: string): string | null {
  if (target.startsWith("/") || /^[A-Za-z]:/.test(target)) return null;
  const joined = posix.normalize(posix.join(posix.dirname(path), target));
  if (joined === ".." || joined.startsWith("../") || joined.startsWith("/")) return null;
  return joined;
}

/** Git's own folder, at any depth: never part of a pack (git refuses to track it, in any case). */
const isGitFolder = (part: string): boolean => part.toLowerCase() === ".git";

async function readEntry(entry: Entry, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks, size);
}

interface Walk {
  readonly limits: ArchiveLimits;
  readonly tree: ScratchTree;
  /** Regular files (hard-link copies too), in archive order, each once. */
  readonly paths: string[];
  /** Each regular file of the archive so far: its size and mode, for hard links naming it. */
  readonly files: Map<string, { size: number; executable: boolean }>;
  /** Entries of every kind, files and links, folders made. */
  counts: { entries: number; files: number; folders: number };
  bytes: number;
}

/** Counts a file (regular, hard or symbolic link) of `size` bytes against the limits. */
function countFile(walk: Walk, path: string, size: number): void {
  const { limits } = walk;
  if (++walk.counts.files > limits.maxFiles) throw new ArchiveError(`the archive holds more than ${limits.maxFiles} files`);
  if (size > limits.maxFileBytes) throw new ArchiveError(`the file ${path} is larger than the limit of ${limits.maxFileBytes} bytes`);
  if (walk.bytes + size > limits.maxTotalBytes) throw new ArchiveError(`the archive unpacks to more than the limit of ${limits.maxTotalBytes} bytes`);
  walk.bytes += size;
}

function makeFolder(walk: Walk, path: string): void {
  if (++walk.counts.folders > walk.limits.maxFiles) throw new ArchiveError(`the archive holds more than ${walk.limits.maxFiles} folders`);
  walk.tree.makeDirectory(path);
}

/**
 * Every folder on the way to `path`, checked on the tree one component at a time and made when
 * missing: a link anywhere on the way is refused, as is a file standing where a folder should.
 */
function makeParents(walk: Walk, path: string): void {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) {
    const parent = parts.slice(0, i).join("/");
    const kind = walk.tree.kind(parent);
    if (kind === null) makeFolder(walk, parent);
    else if (kind === "symlink") throw new ArchiveError(`the archive writes through a link: ${path} (${parent} is a link)`);
    else if (kind !== "directory") throw new ArchiveError(`the archive puts ${path} beneath the file ${parent}`);
  }
}

/** One entry: checked, then made in the tree (on disk when extracting, in memory when only checking). */
async function takeEntry(walk: Walk, header: Header, entry: Entry): Promise<void> {
  if (++walk.counts.entries > walk.limits.maxFiles * 2) throw new ArchiveError(`the archive holds more than ${walk.limits.maxFiles * 2} entries`);
  const checked = checkEntryPath(header.name);
  if (!checked.ok) {
    if (checked.reason === "") return void entry.resume();
    throw new ArchiveError(checked.reason);
  }
  const path = checked.path;
  // A `.git` folder in an archive is ignored, whatever it holds.
  if (path.split("/").some(isGitFolder)) return void entry.resume();
  const type = header.type ?? "file";
  if (type === "character-device" || type === "block-device" || type === "fifo") throw new ArchiveError(`the archive holds a device or pipe file: ${path}`);
  if (!["directory", "file", "contiguous-file", "link", "symlink"].includes(type)) throw new ArchiveError(`the archive holds an entry of unsupported type ${type}: ${path}`);
  makeParents(walk, path);
  const existing = walk.tree.kind(path);
  // Nothing is ever written at a link's own name: it would land wherever the link points.
  if (existing === "symlink") throw new ArchiveError(`the archive writes over a link: ${path}`);
  const { tree } = walk;
  switch (type) {
    case "directory":
      if (existing === null) makeFolder(walk, path);
      else if (existing !== "directory") throw new ArchiveError(`the archive holds ${path} both as a file and as a folder`);
      return void entry.resume();
    case "file":
    case "contiguous-file": {
      if (existing !== null && existing !== "file") throw new ArchiveError(`the archive holds ${path} both as a file and as a folder`);
      const size = header.size ?? 0;
      countFile(walk, path, size);
      const executable = ((header.mode ?? 0o644) & 0o111) !== 0;
      // A tree that keeps no bytes still has the entry drained, or the archive stalls.
      if (!tree.keepsBytes) entry.resume();
      tree.writeFile(path, tree.keepsBytes ? await readEntry(entry, size) : Buffer.alloc(0), executable);
      if (!walk.files.has(path)) walk.paths.push(path);
      walk.files.set(path, { size, executable });
      return;
    }
    case "link": {
      // A hard link is a copy of an earlier regular file of this archive, read back from what this
      // extraction wrote: never a path on disk of the link's choosing.
      const named = checkEntryPath(header.linkname ?? "");
      if (!named.ok || named.path.split("/").some(isGitFolder)) throw new ArchiveError(`the archive holds a hard link that points outside the repository: ${path} -> ${header.linkname ?? ""}`);
      const source = walk.files.get(named.path);
      if (!source || tree.kind(named.path) !== "file") throw new ArchiveError(`the archive holds a hard link to ${named.path}, which is not an earlier file of the archive: ${path}`);
      if (existing !== null && existing !== "file") throw new ArchiveError(`the archive holds ${path} both as a file and as a folder`);
      countFile(walk, path, source.size);
      tree.writeFile(path, tree.readFile(named.path), source.executable);
      if (!walk.files.has(path)) walk.paths.push(path);
      walk.files.set(path, source);
      return void entry.resume();
    }
    default: {
      // A symbolic link is stored as it is and never followed: nothing is written through it or
      // over it, no hard link may name it, and the context and patch check never open it.
      const target = header.linkname ?? "";
      if (target === "" || target.includes("\0") || Buffer.byteLength(target) > MAX_PATH_BYTES) throw new ArchiveError(`the archive holds a link with an unusable target: ${path}`);
      if (symlinkLanding(path, target) === null) throw new ArchiveError(`the archive holds a link that points outside the repository: ${path} -> ${target}`);
      if (existing !== null) throw new ArchiveError(`the archive holds a link where it already holds a file or folder: ${path}`);
      countFile(walk, path, 0);
      tree.makeSymlink(path, target);
      return void entry.resume();
    }
  }
}

/**
 * Reads a gzipped tar stream entry by entry. With `dest`, makes the tree under it; without, makes
 * the same decisions in memory (the upload's check before the job is queued). Refuses absolute
 * paths, `..`, anything written through or over a link, hard links to anything but an earlier
 * file of the archive, links that point out, device files, and archives past the limits, with an
 * ArchiveError saying which; a stream that is not a gzipped tar is refused too.
 */
export async function extractArchive(source: Readable, limits: ArchiveLimits, dest: string | null): Promise<ExtractedArchive> {
  const gunzip = createGunzip();
  const extract = tarExtract();
  const fail = (error: Error): void => void extract.destroy(error);
  source.on("error", fail);
  gunzip.on("error", fail);
  source.pipe(gunzip).pipe(extract);
  const tree = dest === null ? createCountingTree() : createDiskTree(dest);
  const walk: Walk = { limits, tree, paths: [], files: new Map(), counts: { entries: 0, files: 0, folders: 0 }, bytes: 0 };
  try {
    for await (const entry of extract) await takeEntry(walk, entry.header, entry);
  } catch (error) {
    source.destroy();
    if (error instanceof ArchiveError) throw error;
    // A file-system error names a path of this machine: only its code is shown.
    if (error instanceof Error && "syscall" in error) throw new ArchiveError(`the archive could not be unpacked (${(error as NodeJS.ErrnoException).code ?? error.name})`);
    throw new ArchiveError(`the upload is not a gzipped tar archive (${error instanceof Error ? error.message : String(error)})`);
  }
  return { paths: walk.paths, bytes: walk.bytes };
}
