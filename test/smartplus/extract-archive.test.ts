import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, lstatSync, mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Readable } from "node:stream";
import { checkEntryPath, extractArchive } from "../../src/smartplus/extract-archive.ts";
import { makeArchive } from "./smartplus-helpers.ts";

const LIMITS = { maxFiles: 100, maxFileBytes: 10_000, maxTotalBytes: 20_000 };
const dirs: string[] = [];
const freshDir = () => {
  const dir = mkdtempSync(join(tmpdir(), "routelane-extract-"));
  dirs.push(dir);
  return dir;
};
afterAll(() => dirs.forEach((dir) => rmSync(dir, { recursive: true, force: true })));

describe("checkEntryPath", () => {
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
    test(`${JSON.stringify(name)} → ${expected ?? "refused"}`, () => {
      const result = checkEntryPath(name);
      expect(result.ok ? result.path : null).toBe(expected);
    });
  }
});

describe("extractArchive", () => {
  test("writes files, folders, executable bits and links that stay inside; skips .git", async () => {
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
    expect(result.paths).toEqual(["src/a.ts", "run.sh"]);
    expect(readFileSync(join(dest, "src/a.ts"), "utf8")).toBe("a\n");
    expect(lstatSync(join(dest, "run.sh")).mode & 0o111).not.toBe(0);
    expect(lstatSync(join(dest, "src/link")).isSymbolicLink()).toBe(true);
    expect(readFileSync(join(dest, "copy.ts"), "utf8")).toBe("a\n");
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
});
