import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildPatchAnswer } from "../../src/sim/build-patch-answer.ts";
import { buildPatchPrompt } from "../../src/smartplus/build-patch-prompt.ts";
import { checkPatch } from "../../src/smartplus/check-patch.ts";
import { extractDiff } from "../../src/smartplus/request-patch.ts";

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

function tree(files: Record<string, string>): string {
  const dir = mkdtempSync(join(tmpdir(), "routelane-simpatch-"));
  dirs.push(dir);
  for (const [path, content] of Object.entries(files)) writeFileSync(join(dir, path), content);
  return dir;
}

const prompt = (task: string, files: Record<string, string>) =>
  buildPatchPrompt({ task, tree: Object.keys(files), treeOmitted: 0, files: Object.entries(files).map(([path, content]) => ({ path, content, truncated: false })) });

describe("the sim's patch answer", () => {
  const cases: { name: string; task: string; files: Record<string, string>; changed: string; applies: boolean }[] = [
    { name: "append to a named file", task: 'append "done" to b.txt', files: { "a.txt": "one\n", "b.txt": "1\n2\n3\n4\n" }, changed: "b.txt", applies: true },
    { name: "a file without a final newline", task: 'append "done" to a.txt.', files: { "a.txt": "no newline" }, changed: "a.txt", applies: true },
    { name: "an empty file", task: 'append "done" to a.txt', files: { "a.txt": "" }, changed: "a.txt", applies: true },
    { name: "a new file", task: 'append "done" to new.txt', files: { "a.txt": "x\n" }, changed: "new.txt", applies: true },
    { name: "no directive: the file the task names", task: "tidy up b.txt please", files: { "a.txt": "x\n", "b.txt": "y\n" }, changed: "b.txt", applies: true },
    { name: "a broken patch on request", task: "break the patch of a.txt", files: { "a.txt": "x\n" }, changed: "a.txt", applies: false },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const answer = buildPatchAnswer("sim-max", prompt(c.task, c.files));
      const found = extractDiff(answer ?? "");
      expect(found?.diff).toContain(`+++ b/${c.changed}`);
      expect((await checkPatch(tree(c.files), found!.diff)).ok).toBe(c.applies);
    });
  }

  test("any other prompt is left to the ordinary answer", () => {
    expect(buildPatchAnswer("sim-max", "hello")).toBeNull();
  });

  test("the same prompt gives the same answer", () => {
    const text = prompt("fix a.txt", { "a.txt": "x\n" });
    expect(buildPatchAnswer("sim-max", text)).toBe(buildPatchAnswer("sim-max", text)!);
  });
});
