import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { extractArchive } from "../../src/smartplus/extract-archive.ts";
import { makeArchive } from "./smartplus-helpers.ts";

const LIMITS = { maxFiles: 100, maxFileBytes: 10_000, maxTotalBytes: 20_000 };
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "routelane-extract-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

describe("entry paths", () => {
  const cases: [string, string | null][] = [
    ["src/a.ts", "src/a.ts"],
    ["./src/a.ts", "src/a.ts"],
    ["src/", "src"],
    ["src//b/./c", "src/b/c"],
    ["../a", null],
    ["src/../../a", null],
    ["/etc/passwd", null],
    ["C:/x", null],
    ["\\\\server\\share", null],
  ];
  for (const [name, expected] of cases) {
    test(`${JSON.stringify(name)} → ${expected ?? "refused"}`, async () => {
      const dest = freshDir();
      const entry = name.endsWith("/") ? { name, type: "directory" as const } : { name, body: "x" };
      const extracting = extractArchive(Readable.from([await makeArchive([entry])]), LIMITS, dest);
      if (expected === null) await expect(extracting).rejects.toThrow("the archive holds");
      else {
        await extracting;
        expect(existsSync(join(dest, expected))).toBe(true);
      }
    });
  }
});

describe("extractArchive", () => {
  test("writes files, folders, executable bits and links that stay inside; a hard link is a copy; skips .git", async () => {
    const dest = freshDir();
    const archive = await makeArchive([
      { name: "src/", type: "directory" },
      { name: "src/a.ts", body: "a\n" },
      { name: "run.sh", body: "#!/bin/sh\n", mode: 0o755 },
      { name: "src/link", type: "symlink", linkname: "a.ts" },
      { name: "copy.ts", type: "link", linkname: "src/a.ts" },
      { name: ".git/config", body: "[core]\n" },
    ]);
    const result = await extractArchive(Readable.from([archive]), LIMITS, dest);
    expect(result.paths).toEqual(["src/a.ts", "run.sh", "copy.ts"]);
    expect(readFileSync(join(dest, "src/a.ts"), "utf8")).toBe("a\n");
    expect(lstatSync(join(dest, "run.sh")).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(dest, "src/link")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dest, "copy.ts"), "utf8")).toBe("a\n");
    expect(lstatSync(join(dest, "copy.ts")).ino).not.toBe(lstatSync(join(dest, "src/a.ts")).ino);
    expect(existsSync(join(dest, ".git"))).toBe(false);
  });

  test("without a destination it only counts, writing nothing", async () => {
    const archive = await makeArchive([{ name: "a.txt", body: "x" }, { name: "b.txt", body: "yy" }]);
    expect(await extractArchive(Readable.from([archive]), LIMITS, null)).toEqual({ paths: ["a.txt", "b.txt"], bytes: 3 });
  });

  test("the total size limit counts every file", async () => {
    const archive = await makeArchive([{ name: "a.txt", body: "x".repeat(9_000) }, { name: "b.txt", body: "x".repeat(9_000) }, { name: "c.txt", body: "x".repeat(9_000) }]);
    await expect(extractArchive(Readable.from([archive]), LIMITS, null)).rejects.toThrow("unpacks to more than the limit");
  });

  test("a hard link to a path outside is refused", async () => {
    const archive = await makeArchive([{ name: "x", type: "link", linkname: "../../etc/passwd" }]);
    await expect(extractArchive(Readable.from([archive]), LIMITS, freshDir())).rejects.toThrow("points outside");
  });

  test("setuid, setgid and sticky bits never reach the tree; a later entry of the same file replaces it", async () => {
    const dest = freshDir();
    const archive = await makeArchive([
      { name: "suid", body: "x", mode: 0o4755 },
      { name: "sgid", body: "x", mode: 0o2644 },
      { name: "sticky/", type: "directory", mode: 0o1777 },
      { name: "twice.txt", body: "first\n" },
      { name: "twice.txt", body: "second\n" },
    ]);
    const result = await extractArchive(Readable.from([archive]), LIMITS, dest);
    expect(lstatSync(join(dest, "suid")).mode & 0o7777).toBe(0o755);
    expect(lstatSync(join(dest, "sgid")).mode & 0o7777).toBe(0o644);
    expect(lstatSync(join(dest, "sticky")).mode & 0o7000).toBe(0);
    expect(readFileSync(join(dest, "twice.txt"), "utf8")).toBe("second\n");
    expect(result.paths).toEqual(["suid", "sgid", "twice.txt"]);
  });

  test("a .git folder is skipped at any depth, in any case", async () => {
    const dest = freshDir();
    const archive = await makeArchive([
      { name: "a.txt", body: "a" },
      { name: "sub/.git/config", body: "[core]\n" },
      { name: ".GIT/hooks/post-checkout", body: "#!/bin/sh\n", mode: 0o755 },
      { name: "sub/.Git", type: "symlink", linkname: "../a.txt" },
    ]);
    expect((await extractArchive(Readable.from([archive]), LIMITS, dest)).paths).toEqual(["a.txt"]);
    expect(existsSync(join(dest, "sub"))).toBe(false);
    expect(existsSync(join(dest, ".GIT"))).toBe(false);
  });

  const refused: { name: string; entries: Parameters<typeof makeArchive>[0]; reason: string }[] = [
    { name: "a hard link to a later file", entries: [{ name: "x", type: "link", linkname: "y" }, { name: "y", body: "y" }], reason: "not an earlier file of the archive: x" },
    { name: "a hard link to a symbolic link", entries: [{ name: "a", body: "a" }, { name: "s", type: "symlink", linkname: "a" }, { name: "x", type: "link", linkname: "s" }], reason: "not an earlier file" },
    { name: "a hard link to a folder", entries: [{ name: "d/", type: "directory" }, { name: "x", type: "link", linkname: "d" }], reason: "not an earlier file" },
    { name: "a hard link to .git", entries: [{ name: ".git/config", body: "x" }, { name: "x", type: "link", linkname: ".git/config" }], reason: "points outside" },
    { name: "a hard link to an absolute path", entries: [{ name: "x", type: "link", linkname: "/etc/passwd" }], reason: "points outside" },
    { name: "a hard link through a link to a folder", entries: [{ name: "d/a", body: "a" }, { name: "l", type: "symlink", linkname: "d" }, { name: "x", type: "link", linkname: "l/a" }], reason: "not an earlier file" },
    { name: "a file over a link inside", entries: [{ name: "a", body: "a" }, { name: "l", type: "symlink", linkname: "a" }, { name: "l", body: "b" }], reason: "writes over a link: l" },
    { name: "a folder over a link", entries: [{ name: "d/", type: "directory" }, { name: "l", type: "symlink", linkname: "d" }, { name: "l/", type: "directory" }], reason: "writes over a link: l" },
    { name: "a link over a link", entries: [{ name: "l", type: "symlink", linkname: "a" }, { name: "l", type: "symlink", linkname: "b" }], reason: "writes over a link: l" },
    { name: "a link over a file", entries: [{ name: "a", body: "a" }, { name: "a", type: "symlink", linkname: "b" }], reason: "already holds a file or folder: a" },
    { name: "a file beneath a link to a folder", entries: [{ name: "d/", type: "directory" }, { name: "l", type: "symlink", linkname: "d" }, { name: "l/x", body: "x" }], reason: "through a link: l/x (l is a link)" },
    { name: "a file beneath a file", entries: [{ name: "a", body: "a" }, { name: "a/b", body: "b" }], reason: "beneath the file a" },
    { name: "a folder where a file is", entries: [{ name: "a", body: "a" }, { name: "a/", type: "directory" }], reason: "both as a file and as a folder" },
    { name: "a file where a folder is", entries: [{ name: "a/b", body: "b" }, { name: "a", body: "a" }], reason: "both as a file and as a folder" },
    { name: "a fifo", entries: [{ name: "p", type: "fifo" }], reason: "device or pipe" },
    { name: "a block device", entries: [{ name: "b", type: "block-device", devmajor: 8, devminor: 0 }], reason: "device or pipe" },
    { name: "a path with a NUL byte (in a pax header)", entries: [{ name: "a", pax: { path: "a\0b" }, body: "x" }], reason: "NUL" },
    { name: "a link with an empty target", entries: [{ name: "l", type: "symlink", linkname: "" }], reason: "unusable target" },
    { name: "a name longer than 255 bytes", entries: [{ name: `${"n".repeat(256)}`, body: "x" }], reason: "too long" },
    { name: "a path longer than 4095 bytes", entries: [{ name: Array.from({ length: 50 }, () => "d".repeat(90)).join("/"), body: "x" }], reason: "too long" },
    { name: "more folders than files allowed", entries: Array.from({ length: 101 }, (_, i) => ({ name: `d${i}/`, type: "directory" as const })), reason: "more than 100 folders" },
    { name: "more links than files allowed", entries: Array.from({ length: 101 }, (_, i) => ({ name: `l${i}`, type: "symlink" as const, linkname: "a" })), reason: "more than 100 files" },
    { name: "more entries than twice the files allowed, skipped ones too", entries: Array.from({ length: 201 }, (_, i) => ({ name: `.git/x${i}`, body: "" })), reason: "more than 200 entries" },
    { name: "hard links past the total size", entries: [{ name: "a", body: "x".repeat(9_000) }, { name: "b", type: "link", linkname: "a" }, { name: "c", type: "link", linkname: "a" }], reason: "unpacks to more than the limit" },
  ];
  for (const bad of refused) {
    test(`refused, checking or extracting: ${bad.name}`, async () => {
      const archive = await makeArchive(bad.entries);
      await expect(extractArchive(Readable.from([archive]), LIMITS, null)).rejects.toThrow(bad.reason);
      await expect(extractArchive(Readable.from([archive]), LIMITS, freshDir())).rejects.toThrow(bad.reason);
    });
  }
});
