import { afterAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { buildRepoContext } from "../../src/smartplus/build-repo-context.ts";
import { makeSandbox, MARKER } from "./attack-archives.ts";

const root = mkdtempSync(join(tmpdir(), "routelane-context-"));
afterAll(() => rmSync(root, { recursive: true, force: true }));
const files: Record<string, string | Uint8Array> = {
  "README.md": "# Project\n",
  "src/billing/invoice.ts": "export function invoiceTotal() { return 1; }\n",
  "src/util.ts": "// helpers used by invoice code: invoice, invoice\n",
  "src/other.ts": "export const unrelated = true;\n",
  "logo.png": new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 1]),
  "big.txt": "word ".repeat(10_000),
};
for (const [path, content] of Object.entries(files)) {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
}
const paths = Object.keys(files);

describe("buildRepoContext", () => {
  test("the tree lists every path; files go in by relevance, whole; binary files stay out", () => {
    const context = buildRepoContext(root, paths, "Fix the invoice total", 100_000);
    expect(context.tree).toEqual(paths);
    expect(context.binary).toBe(1);
    expect(context.files.map((f) => f.path).slice(0, 2)).toEqual(["src/billing/invoice.ts", "src/util.ts"]);
    expect(context.files.some((f) => f.path === "logo.png")).toBe(false);
    expect(context.files.every((f) => !f.truncated && f.content === files[f.path])).toBe(true);
  });

  test("a small window keeps the most relevant files that fit and leaves out the rest", () => {
    const context = buildRepoContext(root, paths, "Fix the invoice total", 200);
    const chosen = context.files.map((f) => f.path);
    expect(chosen[0]).toBe("src/billing/invoice.ts");
    expect(chosen).not.toContain("big.txt");
  });

  test("no link is followed: a path that is a link, or runs through one, is never read", () => {
    const sandbox = makeSandbox();
    try {
      const tree = join(sandbox.root, "tree");
      mkdirSync(join(tree, "src"), { recursive: true });
      writeFileSync(join(tree, "README.md"), "# Project\n");
      symlinkSync(sandbox.marker, join(tree, "leak.md"));
      symlinkSync("../../marker.txt", join(tree, "src", "relative.md"));
      symlinkSync(sandbox.root, join(tree, "box"));
      const linked = ["leak.md", "src/relative.md", "box/marker.txt"];
      const context = buildRepoContext(tree, ["README.md", ...linked], "Fix leak.md, src/relative.md and box/marker.txt", 100_000);
      expect(context.files.map((f) => f.path)).toEqual(["README.md"]);
      expect(JSON.stringify(context)).not.toContain(MARKER.trim());
      // Even as the only candidate (the truncated-head path), nothing behind a link is read.
      expect(buildRepoContext(tree, linked, "box/marker.txt", 50).files).toEqual([]);
    } finally {
      rmSync(sandbox.root, { recursive: true, force: true });
    }
  });
});
