import { describe, expect, test } from "bun:test";
import { lstatSync, mkdirSync, readdirSync, readFileSync, realpathSync, rmSync } from "node:fs";
import { join } from "node:path";
import { Readable } from "node:stream";
import { buildPatchAnswer } from "../../src/sim/build-patch-answer.ts";
import { buildPatchPrompt } from "../../src/smartplus/build-patch-prompt.ts";
import { buildRepoContext } from "../../src/smartplus/build-repo-context.ts";
import { checkPatch } from "../../src/smartplus/check-patch.ts";
import { extractArchive } from "../../src/smartplus/extract-archive.ts";
import { extractDiff } from "../../src/smartplus/request-patch.ts";
import { makeRandom, makeSandbox, MARKER, NAMED_ATTACKS, randomLinkArchive, snapshotTree, type ArchiveEntries, type Sandbox } from "./attack-archives.ts";
import { makeArchive } from "./smartplus-helpers.ts";

const LIMITS = { maxFiles: 1000, maxFileBytes: 100_000, maxTotalBytes: 1_000_000 };
const TASK = 'append "reviewed" to README.md';
const MARKER_WORD = MARKER.split(":")[0]!;
const TREE = "blobs/job_attack/tree";


/** An outcome of one extraction: the files, or the refusal's message. */
type Verdict = { ok: true; paths: readonly string[] } | { ok: false; message: string };
async function extract(archive: Uint8Array, dest: string | null): Promise<Verdict> {
  try {
    return { ok: true, paths: (await extractArchive(Readable.from([archive]), LIMITS, dest)).paths };
  } catch (error) {
    return { ok: false, message: error instanceof Error ? error.message : String(error) };
  }
}

/** Every path under `tree` that really lies outside it (a link followed, a folder swapped). */
function escapes(tree: string): string[] {
  const root = realpathSync(tree);
  const out: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir)) {
      const full = join(dir, name);
      const stat = lstatSync(full);
      if (stat.isSymbolicLink()) continue;
      if (!realpathSync(full).startsWith(`${root}/`)) out.push(full);
      else if (stat.isFile() && readFileSync(full, "utf8").includes(MARKER_WORD)) out.push(`${full} (holds the marker)`);
      if ((stat.mode & 0o7000) !== 0) out.push(`${full} (mode ${(stat.mode & 0o7777).toString(8)})`);
      if (stat.isDirectory()) walk(full);
    }
  };
  walk(tree);
  return out;
}

/**
 * What a worker does with an upload, without the queue: the upload's check, the extraction, the
 * context, the simulated model's patch for it, `git apply --check`. Returns both verdicts and
 * everything the job would show (context, patch, git's complaint), with the sandbox's state
 * outside the tree before and after.
 */
async function runPipeline(build: (sandbox: Sandbox) => ArchiveEntries, taskOf: () => string = () => TASK): Promise<{ upload: Verdict; worker: Verdict; shown: string; before: Map<string, string>; after: Map<string, string>; escaped: string[] }> {
  const sandbox = makeSandbox();
  const entries = build(sandbox);
  const tree = join(sandbox.root, TREE);
  mkdirSync(tree, { recursive: true });
  const outsideTree = (rel: string): boolean => rel === TREE || rel.startsWith(`${TREE}/`);
  const before = snapshotTree(sandbox.root, outsideTree);
  const archive = await makeArchive(entries);
  const task = taskOf();
  const upload = await extract(archive, null);
  const worker = await extract(archive, tree);
  let shown = "";
  if (worker.ok) {
    const context = buildRepoContext(tree, worker.paths, task, 50_000);
    const prompt = buildPatchPrompt({ task, tree: context.tree, treeOmitted: context.treeOmitted, files: context.files });
    const answer = buildPatchAnswer("sim-max", prompt) ?? "";
    const diff = extractDiff(answer);
    const check = diff ? await checkPatch(tree, diff.diff) : null;
    shown = JSON.stringify({ context, answer, check });
  } else shown = worker.message;
  const result = { upload, worker, shown: `${shown}\n${upload.ok ? "" : upload.message}`, before, after: snapshotTree(sandbox.root, outsideTree), escaped: escapes(tree) };
  rmSync(sandbox.root, { recursive: true, force: true });
  return result;
}

describe("extraction attacks: nothing outside the tree is read or written", () => {
  for (const [name, build] of Object.entries(NAMED_ATTACKS)) {
    test(name, async () => {
      const result = await runPipeline(build);
      expect(result.shown).not.toContain(MARKER_WORD);
      expect([...result.after]).toEqual([...result.before]);
      expect(result.escaped).toEqual([]);
      // Refused at upload and by the worker, with a message that says why.
      expect(result.upload.ok).toBe(false);
      expect(result.worker.ok).toBe(false);
      expect(result.upload.ok ? "" : result.upload.message).toMatch(/link/);
    });
  }
});

describe("random link chains (fixed seed)", () => {
  const ARCHIVES = 300;
  test(`${ARCHIVES} archives: nothing outside read or written, upload check and worker agree, accepted trees stay inside`, async () => {
    const random = makeRandom(0x5eed_17);
    const failures: string[] = [];
    const accepted = new Map<string, number>();
    for (let i = 0; i < ARCHIVES; i++) {
      let made: ReturnType<typeof randomLinkArchive> | undefined;
      const build = (sandbox: Sandbox): ArchiveEntries => (made = randomLinkArchive(random, sandbox)).entries;
      // The task is only known once the archive is: the pipeline asks for it after building.
      const result = await runPipeline(build, () => made!.task);
      const problems = [
        result.shown.includes(MARKER_WORD) ? "the marker reached the context or patch" : "",
        JSON.stringify([...result.after]) !== JSON.stringify([...result.before]) ? "something outside the tree changed" : "",
        result.escaped.length > 0 ? `the tree reaches outside: ${result.escaped.join(", ")}` : "",
        result.upload.ok !== result.worker.ok ? `upload ${result.upload.ok ? "accepted" : "refused"}, worker ${result.worker.ok ? "accepted" : "refused"}` : "",
      ].filter((problem) => problem !== "");
      if (problems.length > 0) failures.push(`#${i} (${made!.step}): ${problems.join("; ")}`);
      if (result.worker.ok) accepted.set(made!.step, (accepted.get(made!.step) ?? 0) + 1);
    }
    expect(failures).toEqual([]);
    // Chains that are only stored are accepted (links are kept, never followed); every use of one is refused.
    expect(accepted.get("only store the chain") ?? 0).toBeGreaterThan(ARCHIVES / 20);
    expect([...accepted.keys()]).toEqual(["only store the chain"]);
  }, 300_000);
});
