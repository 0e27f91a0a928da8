import { createHash } from "node:crypto";
import { lstatSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, realpathSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, posix, relative, sep } from "node:path";
import type { makeArchive } from "./smartplus-helpers.ts";

export type ArchiveEntries = Parameters<typeof makeArchive>[0];
type MutableEntries = ArchiveEntries[number][];

/** The text of the file an attacker wants to read; it must never show up in a context or patch. */
export const MARKER = "routelane-marker-4f1c9e: the secret beside the scratch tree\n";

/**
 * A folder holding a marker file and an empty `outside/` folder, both beside where the scratch
 * trees go: every attack aims at one of them.
 */
export interface Sandbox {
  readonly root: string;
  readonly marker: string;
  readonly outside: string;
}

export function makeSandbox(): Sandbox {
  // The real path: the attacks name it absolutely, and /tmp may itself be a link.
  const root = realpathSync(mkdtempSync(join(tmpdir(), "routelane-attack-")));
  const marker = join(root, "marker.txt");
  const outside = join(root, "outside");
  writeFileSync(marker, MARKER);
  mkdirSync(outside);
  return { root, marker, outside };
}

/**
 * How deep the ladder goes: one more than the depth below `/` of a scratch tree in the sandbox
 * (`<root>/blobs/<job>/tree`), so that climbing it from the tree reaches `/`.
 */
const ladderDepth = (sandbox: Sandbox): number => sandbox.root.split("/").length + 3;
const ladderDir = (sandbox: Sandbox): string => Array.from({ length: ladderDepth(sandbox) }, (_, i) => `d${i + 1}`).join("/");

/**
 * The chain from the issue: `<ladder>/r -> ../…` (lexically inside, really the tree root), then
 * `<ladder>/up -> r/../…` (lexically `d1`, really `/`). Returns the entries and the path (inside the
 * archive) that really is `/`.
 */
export function ladderToRoot(sandbox: Sandbox): { entries: ArchiveEntries; root: string } {
  const ups = Array.from({ length: ladderDepth(sandbox) }, () => "..").join("/");
  const dir = ladderDir(sandbox);
  return {
    entries: [
      { name: `${dir}/r`, type: "symlink", linkname: ups },
      { name: `${dir}/up`, type: "symlink", linkname: `r/${ups}` },
    ],
    root: `${dir}/up`,
  };
}

/** `absolute` spelled through the ladder: a path inside the archive that really is that absolute path. */
const throughLadder = (sandbox: Sandbox, absolute: string): string => `${ladderToRoot(sandbox).root}${absolute}`;

/** The chained-symlink read: a hard link over an earlier file, its name running through `up`. */
export function chainedRead(sandbox: Sandbox): ArchiveEntries {
  return [{ name: "README.md", body: "# Project\n" }, ...ladderToRoot(sandbox).entries, { name: "README.md", type: "link", linkname: throughLadder(sandbox, sandbox.marker) }];
}

/** The chained-symlink write: `evil -> …/up/<outside>/pwned.txt`, then a regular file `evil`. */
export function chainedWrite(sandbox: Sandbox): ArchiveEntries {
  return [
    { name: "README.md", body: "# Project\n" },
    ...ladderToRoot(sandbox).entries,
    { name: "evil", type: "symlink", linkname: throughLadder(sandbox, join(sandbox.outside, "pwned.txt")) },
    { name: "evil", body: "written outside\n" },
  ];
}

/** Hard links whose names run through links: to the marker's folder, and through a link to a link. */
export function hardLinksThroughLinks(sandbox: Sandbox): ArchiveEntries {
  const { entries, root } = ladderToRoot(sandbox);
  return [
    { name: "README.md", body: "# Project\n" },
    ...entries,
    { name: "box", type: "symlink", linkname: `${root}${sandbox.root}` },
    { name: "alias", type: "symlink", linkname: "box" },
    { name: "README.md", type: "link", linkname: "alias/marker.txt" },
    { name: "notes.txt", type: "link", linkname: "box/marker.txt" },
  ];
}

/** A link, then a regular file of the same name: the file's bytes would go where the link points. */
export function linkThenFile(sandbox: Sandbox): ArchiveEntries {
  const { entries, root } = ladderToRoot(sandbox);
  return [
    { name: "README.md", body: "# Project\n" },
    ...entries,
    { name: "config.json", type: "symlink", linkname: `${root}${join(sandbox.outside, "config.json")}` },
    { name: "config.json", body: '{"providers": "taken over"}\n' },
    // The same over a link to a file inside: the file it points at must not change either.
    { name: "inner", type: "symlink", linkname: "README.md" },
    { name: "inner", body: "overwritten through a link\n" },
  ];
}

/** A link to a folder (outside, through the ladder), then entries beneath it: a file, a folder, a hard link. */
export function linkToFolderThenBeneath(sandbox: Sandbox): ArchiveEntries {
  const { entries, root } = ladderToRoot(sandbox);
  return [
    { name: "README.md", body: "# Project\n" },
    ...entries,
    { name: "out", type: "symlink", linkname: `${root}${sandbox.root}` },
    { name: "README.md", type: "link", linkname: "out/marker.txt" },
    { name: "out/outside/", type: "directory" },
    { name: "out/outside/pwned.txt", body: "written beneath a link\n" },
    { name: "self", type: "symlink", linkname: "." },
    { name: "self/d1/", type: "directory" },
  ];
}

/** Every named attack, by name. */
export const NAMED_ATTACKS: Record<string, (sandbox: Sandbox) => ArchiveEntries> = {
  "chained-symlink read (hard link through a ladder to /)": chainedRead,
  "chained-symlink write (a file over a link through the ladder)": chainedWrite,
  "hard links through links": hardLinksThroughLinks,
  "a link then a file of the same name": linkThenFile,
  "a link to a folder then entries beneath it": linkToFolderThenBeneath,
};

/** A fixed-seed PRNG (mulberry32): the same archives every run. */
export function makeRandom(seed: number): { int(n: number): number; pick<T>(items: readonly T[]): T; chance(p: number): boolean } {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const int = (n: number): number => Math.floor(next() * n);
  return { int, pick: (items) => items[int(items.length)]!, chance: (p) => next() < p };
}

/** What one random archive tries to do with its chain of links. */
const STEPS = ["read through a hard link", "write over the link", "write beneath the link", "hard link beneath the link", "only store the chain"] as const;

/**
 * One random archive of link chains: a chain of 1–5 symbolic links at random places, each naming
 * the next by a relative path spelled a random way, the last one aiming (through the ladder to
 * `/`, or by a plain climb) at the sandbox's marker, its folder or its `outside/` folder; mixed with
 * harmless files, folders and links; then one step that would use the chain (or none). Also a
 * task for the simulated model, naming a path through the chain now and then.
 */
export function randomLinkArchive(random: ReturnType<typeof makeRandom>, sandbox: Sandbox): { entries: ArchiveEntries; task: string; step: string } {
  const entries: MutableEntries = [{ name: "README.md", body: "# Project\n" }];
  const noise = (): void => {
    for (let i = random.int(3); i > 0; i--) {
      const name = `${random.pick(["src", "lib", "docs/guide", ""])}/${random.pick(["a", "b", "index"])}${random.int(100)}`.replace(/^\//, "");
      switch (random.int(3)) {
        case 0:
          entries.push({ name: `${name}.ts`, body: `export const n = ${i};\n`, mode: random.chance(0.3) ? random.pick([0o4755, 0o2755, 0o1777, 0o755]) : 0o644 });
          break;
        case 1:
          entries.push({ name: `${name}/`, type: "directory" });
          break;
        default:
          entries.push({ name: `${name}.lnk`, type: "symlink", linkname: random.pick(["README.md", "../README.md", ".", "src"]) });
      }
    }
  };
  const dirs = ["", "x/", "deep/a/b/", "src/", "d1/"];
  const spell = (path: string): string => (random.chance(0.3) ? `./${path}` : random.chance(0.2) ? path.replace("/", "//") : path);
  noise();
  const aimKind = random.pick(["marker", "folder", "outside"] as const);
  const aim = aimKind === "marker" ? sandbox.marker : aimKind === "folder" ? sandbox.root : sandbox.outside;
  const useLadder = random.chance(0.85);
  if (useLadder) entries.push(...ladderToRoot(sandbox).entries);
  const hops = 1 + random.int(5);
  const chain = Array.from({ length: hops }, (_, i) => `${random.pick(dirs)}l${i}`);
  const links: MutableEntries = chain.map((name, i) => {
    const next = chain[i + 1];
    const from = posix.dirname(name);
    const target = next !== undefined ? posix.relative(from, next) : useLadder ? posix.relative(from, throughLadder(sandbox, aim)) : `${"../".repeat(1 + random.int(6))}${posix.basename(aim)}`;
    return { name: spell(name), type: "symlink" as const, linkname: spell(target) };
  });
  // The links may come in any order: none needs its target to exist yet.
  for (let i = links.length - 1; i > 0; i--) {
    const j = random.int(i + 1);
    [links[i], links[j]] = [links[j]!, links[i]!];
  }
  entries.push(...links);
  noise();
  const head = chain[0]!;
  const within = aimKind === "marker" ? "" : aimKind === "folder" ? "/marker.txt" : `/w${random.int(5)}.txt`;
  const step = random.pick(STEPS);
  switch (step) {
    case "read through a hard link":
      entries.push({ name: random.pick(["README.md", "notes.txt"]), type: "link", linkname: spell(`${head}${aimKind === "outside" ? "/../marker.txt" : within}`) });
      break;
    case "write over the link":
      entries.push({ name: spell(head), body: "written over a link\n" });
      break;
    case "write beneath the link":
      entries.push({ name: spell(`${head}${aimKind === "folder" ? "/outside/w9.txt" : "/w9.txt"}`), body: "written beneath a link\n" });
      break;
    case "hard link beneath the link":
      entries.push({ name: spell(`${head}/w8.txt`), type: "link", linkname: "README.md" });
      break;
    case "only store the chain":
      break;
  }
  noise();
  const task = `append "reviewed" to ${random.pick(["README.md", head, `${head}${within || "/x.txt"}`])}`;
  return { entries, task, step };
}

/**
 * Everything under `root` as `path → what it is` (type, size, content hash or link text), never
 * following a link; `skip` leaves out a subtree (the scratch tree) by its relative path.
 */
export function snapshotTree(root: string, skip: (relativePath: string) => boolean = () => false): Map<string, string> {
  const seen = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const rel = relative(root, full).split(sep).join("/");
      if (skip(rel)) continue;
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) seen.set(rel, `link ${readlinkSync(full)}`);
      else if (stat.isDirectory()) {
        seen.set(rel, `dir ${(stat.mode & 0o7777).toString(8)}`);
        walk(full);
      } else seen.set(rel, `file ${(stat.mode & 0o7777).toString(8)} ${createHash("sha256").update(readFileSync(full)).digest("hex")}`);
    }
  };
  walk(root);
  return seen;
}
