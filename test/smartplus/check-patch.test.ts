import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { checkPatch } from "../../src/smartplus/check-patch.ts";
import { makeSandbox, MARKER, snapshotTree, type Sandbox } from "./attack-archives.ts";

// A tree as extraction leaves it, with links that point outside (the chains an archive can build),
// beside a marker file: git must neither read nor write through any of them.
let sandbox: Sandbox;
let tree: string;
beforeAll(() => {
  sandbox = makeSandbox();
  tree = join(sandbox.root, "tree");
  mkdirSync(tree);
  writeFileSync(join(tree, "README.md"), "# Project\n");
  symlinkSync("../marker.txt", join(tree, "leak"));
  symlinkSync("..", join(tree, "box"));
});
afterAll(() => rmSync(sandbox.root, { recursive: true, force: true }));

const markerLine = MARKER.trimEnd();
const patches: { name: string; diff: string; says: string }[] = [
  { name: "a change to a file beyond a link to a folder", diff: `diff --git a/box/marker.txt b/box/marker.txt\n--- a/box/marker.txt\n+++ b/box/marker.txt\n@@ -1 +1,2 @@\n ${markerLine}\n+x\n`, says: "beyond a symbolic link" },
  { name: "a new file beyond a link", diff: "diff --git a/box/outside/new.txt b/box/outside/new.txt\nnew file mode 100644\n--- /dev/null\n+++ b/box/outside/new.txt\n@@ -0,0 +1 @@\n+x\n", says: "beyond a symbolic link" },
  { name: "a deletion beyond a link", diff: `diff --git a/box/marker.txt b/box/marker.txt\ndeleted file mode 100644\n--- a/box/marker.txt\n+++ /dev/null\n@@ -1 +0,0 @@\n-${markerLine}\n`, says: "beyond a symbolic link" },
  { name: "a rename from beyond a link", diff: "diff --git a/box/marker.txt b/stolen.txt\nsimilarity index 100%\nrename from box/marker.txt\nrename to stolen.txt\n", says: "beyond a symbolic link" },
  { name: "a copy from beyond a link", diff: "diff --git a/box/marker.txt b/stolen.txt\nsimilarity index 100%\ncopy from box/marker.txt\ncopy to stolen.txt\n", says: "beyond a symbolic link" },
  { name: "a link the patch makes, then a file beneath it", diff: "diff --git a/nl b/nl\nnew file mode 120000\n--- /dev/null\n+++ b/nl\n@@ -0,0 +1 @@\n+..\n\\ No newline at end of file\ndiff --git a/nl/outside/p.txt b/nl/outside/p.txt\nnew file mode 100644\n--- /dev/null\n+++ b/nl/outside/p.txt\n@@ -0,0 +1 @@\n+x\n", says: "beyond a symbolic link" },
  { name: "a link to a file changed as if it were the file", diff: `diff --git a/leak b/leak\n--- a/leak\n+++ b/leak\n@@ -1 +1,2 @@\n ${markerLine}\n+x\n`, says: "patch does not apply" },
  { name: "a path with ..", diff: `diff --git a/../marker.txt b/../marker.txt\n--- a/../marker.txt\n+++ b/../marker.txt\n@@ -1 +1,2 @@\n ${markerLine}\n+x\n`, says: "invalid path" },
];

describe("checkPatch with links in the tree", () => {
  for (const patch of patches) {
    test(`${patch.name}: refused, nothing outside read or written`, async () => {
      const before = snapshotTree(sandbox.root, (rel) => rel === "tree/.git" || rel.startsWith("tree/.git/"));
      const check = await checkPatch(tree, patch.diff);
      expect(check.ok).toBe(false);
      expect(check.error).toContain(patch.says);
      expect(snapshotTree(sandbox.root, (rel) => rel === "tree/.git" || rel.startsWith("tree/.git/"))).toEqual(before);
      expect(readFileSync(sandbox.marker, "utf8")).toBe(MARKER);
    });
  }

  test("a patch to a regular file of the tree still applies", async () => {
    expect(await checkPatch(tree, "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n # Project\n+x\n")).toEqual({ ok: true, error: "" });
  });

  test("git runs with no config of this machine's user: a filter defined there never runs on the tree", async () => {
    const home = join(sandbox.root, "home");
    const ran = join(sandbox.outside, "filter-ran");
    mkdirSync(home, { recursive: true });
    writeFileSync(join(home, ".gitconfig"), `[filter "x"]\n\tclean = touch '${ran}' && cat\n`);
    const attributes = join(tree, ".gitattributes");
    writeFileSync(attributes, "* filter=x\n");
    const saved = { HOME: process.env.HOME, XDG_CONFIG_HOME: process.env.XDG_CONFIG_HOME };
    process.env.HOME = home;
    delete process.env.XDG_CONFIG_HOME;
    try {
      expect((await checkPatch(tree, "diff --git a/README.md b/README.md\n--- a/README.md\n+++ b/README.md\n@@ -1 +1,2 @@\n # Project\n+x\n")).ok).toBe(true);
      expect(existsSync(ran)).toBe(false);
    } finally {
      for (const [name, value] of Object.entries(saved)) {
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      }
      rmSync(attributes);
    }
  });
});
