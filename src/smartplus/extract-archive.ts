import { mkdirSync, symlinkSync, writeFileSync, copyFileSync } from "node:fs";
import { dirname, join, posix } from "node:path";
import type { Readable } from "node:stream";
import { createGunzip } from "node:zlib";
import { extract as tarExtract, type Extract, type Header } from "tar-stream";

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

export interface ExtractedArchive {
  /** Regular files, in archive order (relative, `/`-separated). */
  readonly paths: readonly string[];
  readonly bytes: number;
}

/**
 * The safe form of an entry name, or why it is refused: relative, no `..`, nothing empty. A
 * leading `./` is dropped; a trailing `/` (directories) too.
 */
export function checkEntryPath(name: string): { ok: true; path: string } | { ok: false; reason: string } {
  if (name.includes("\0")) return { ok: false, reason: `the archive holds a path with a NUL byte` };
  if (name.startsWith("/") || /^[A-Za-z]:/.test(name) || name.startsWith("\\")) return { ok: false, reason: `the archive holds an absolute path: ${name}` };
  const parts = name.replaceAll("\\", "/").split("/").filter((part) => part !== "" && part !== ".");
  if (parts.includes("..")) return { ok: false, reason: `the archive holds a path that leaves the repository: ${name}` };
  if (parts.length === 0) return { ok: false, reason: "" };
  return { ok: true, path: parts.join("/") };
}

/** Where a link in `path` pointing at `target` lands, relative to the root, or null when outside it. */
function linkTarget(path: string, target: string, symbolic: boolean): string | null {
  if (target.startsWith("/") || /^[A-Za-z]:/.test(target)) return null;
  const joined = symbolic ? posix.normalize(posix.join(posix.dirname(path), target)) : posix.normalize(target);
  if (joined === ".." || joined.startsWith("../") || joined.startsWith("/")) return null;
  return joined;
}

/** Whether any folder on the way to `path` is a link: writing through one could land anywhere. */
function throughLink(path: string, links: ReadonlySet<string>): boolean {
  const parts = path.split("/");
  for (let i = 1; i < parts.length; i++) if (links.has(parts.slice(0, i).join("/"))) return true;
  return false;
}

async function readEntry(entry: Entry, size: number): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of entry) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks, size);
}

interface Walk {
  readonly limits: ArchiveLimits;
  readonly dest: string | null;
  readonly paths: string[];
  readonly links: Set<string>;
  bytes: number;
}

/** One entry: checked, then written under `dest` (when extracting) or only counted. */
async function takeEntry(walk: Walk, header: Header, entry: Entry): Promise<void> {
  const checked = checkEntryPath(header.name);
  if (!checked.ok) {
    if (checked.reason === "") return void entry.resume();
    throw new ArchiveError(checked.reason);
  }
  const path = checked.path;
  // Git's own folder is never part of a pack; an archive that carries one gets it ignored.
  if (path === ".git" || path.startsWith(".git/")) return void entry.resume();
  if (throughLink(path, walk.links)) throw new ArchiveError(`the archive writes through a link: ${path}`);
  const target = walk.dest === null ? null : join(walk.dest, path);
  switch (header.type ?? "file") {
    case "directory":
      if (target) mkdirSync(target, { recursive: true });
      return void entry.resume();
    case "file":
    case "contiguous-file": {
      const size = header.size ?? 0;
      if (walk.paths.length + 1 > walk.limits.maxFiles) throw new ArchiveError(`the archive holds more than ${walk.limits.maxFiles} files`);
      if (size > walk.limits.maxFileBytes) throw new ArchiveError(`the file ${path} is larger than the limit of ${walk.limits.maxFileBytes} bytes`);
      if (walk.bytes + size > walk.limits.maxTotalBytes) throw new ArchiveError(`the archive unpacks to more than the limit of ${walk.limits.maxTotalBytes} bytes`);
      walk.bytes += size;
      walk.paths.push(path);
      if (!target) return void entry.resume();
      const data = await readEntry(entry, size);
      mkdirSync(dirname(target), { recursive: true });
      writeFileSync(target, data, { mode: (header.mode ?? 0o644) & 0o111 ? 0o755 : 0o644 });
      return;
    }
    case "symlink":
    case "link": {
      const symbolic = header.type === "symlink";
      const landing = linkTarget(path, header.linkname ?? "", symbolic);
      if (landing === null) throw new ArchiveError(`the archive holds a link that points outside the repository: ${path} -> ${header.linkname ?? ""}`);
      walk.links.add(path);
      if (target) {
        mkdirSync(dirname(target), { recursive: true });
        if (symbolic) symlinkSync(header.linkname ?? "", target);
        else copyFileSync(join(walk.dest!, landing), target);
      }
      return void entry.resume();
    }
    case "character-device":
    case "block-device":
    case "fifo":
      throw new ArchiveError(`the archive holds a device or pipe file: ${path}`);
    default:
      throw new ArchiveError(`the archive holds an entry of unsupported type ${header.type}: ${path}`);
  }
}

/**
 * Reads a gzipped tar stream entry by entry. With `dest`, writes the files under it; without,
 * only checks and counts (the upload does that before the job is queued). Refuses absolute paths,
 * `..`, links that point out or that are written through, device files, and archives past the
 * limits, with an ArchiveError saying which; a stream that is not a gzipped tar is refused too.
 */
export async function extractArchive(source: Readable, limits: ArchiveLimits, dest: string | null): Promise<ExtractedArchive> {
  const gunzip = createGunzip();
  const extract = tarExtract();
  const fail = (error: Error): void => void extract.destroy(error);
  source.on("error", fail);
  gunzip.on("error", fail);
  source.pipe(gunzip).pipe(extract);
  const walk: Walk = { limits, dest, paths: [], links: new Set(), bytes: 0 };
  try {
    for await (const entry of extract) await takeEntry(walk, entry.header, entry);
  } catch (error) {
    source.destroy();
    if (error instanceof ArchiveError) throw error;
    throw new ArchiveError(`the upload is not a gzipped tar archive (${error instanceof Error ? error.message : String(error)})`);
  }
  return { paths: walk.paths, bytes: walk.bytes };
}
