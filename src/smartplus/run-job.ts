import type { Usage } from "../canonical/usage.ts";
import { createReadStream, rmSync } from "node:fs";
import type { SmartPlusConfig } from "../config/schema.ts";
import { buildPatchPrompt } from "./build-patch-prompt.ts";
import { buildRepoContext } from "./build-repo-context.ts";
import { checkPatch } from "./check-patch.ts";
import type { BlobStore } from "./create-blob-store.ts";
import type { Job, JobStore } from "./create-job-store.ts";
import { ArchiveError, extractArchive } from "./extract-archive.ts";
import { extractDiff, patchOutputTokens, requestPatch, type PatchModel } from "./request-patch.ts";
import { describeDiffStat, summarizeDiff } from "./summarize-diff.ts";

export interface RunJobDeps {
  readonly store: JobStore;
  readonly blobs: BlobStore;
  readonly settings: SmartPlusConfig;
  /** The model named in the job, ready to call; null when the config no longer has it. */
  resolveModel(job: Job): PatchModel | null;
  /** Each model call of a job, for usage accounting (the job's account pays for it). */
  readonly onModelCall?: (job: Job, call: { readonly attempt: number; readonly model: string; readonly usage: Usage; readonly latencyMs: number }) => void;
}

/** Room kept in the window for the instructions and headings around the repository. */
const PROMPT_OVERHEAD_TOKENS = 2_000;

/** Thrown when the job was taken from this worker (lease lost): nothing more may be written. */
class LeaseLost extends Error {}

/**
 * One claimed job, start to end: extract the upload, build the context, ask the model for a
 * diff, check it with `git apply --check`, ask again with git's complaint up to `retries` times,
 * then store the patch and mark the job ready, or fail it with a message fit for the user.
 * Every phase renews the lease; losing it stops the work without touching the job.
 */
export async function runJob(job: Job, worker: string, deps: RunJobDeps, signal: AbortSignal): Promise<void> {
  const { store, blobs, settings } = deps;
  const phase = async (text: string): Promise<void> => {
    if (signal.aborted || !(await store.renew(job.id, worker, settings.leaseTimeoutMs, text))) throw new LeaseLost();
  };
  const tree = blobs.scratch(job.id);
  try {
    const target = deps.resolveModel(job);
    if (!target) {
      await store.fail(job.id, `the model ${job.model} is no longer configured`, worker);
      return;
    }
    await phase("unpacking the upload");
    const extracted = await extractArchive(createReadStream(blobs.path(job.id, "upload.tar.gz")), settings, tree);
    await phase(`reading ${extracted.paths.length} files`);
    const budget = target.model.contextWindow - patchOutputTokens(target.model) - PROMPT_OVERHEAD_TOKENS;
    const context = buildRepoContext(tree, extracted.paths, job.task, Math.max(budget, 1_000));
    await phase(`planning (${context.files.length} of ${extracted.paths.length} files in context)`);
    let previous: { diff: string; error: string } | undefined;
    for (let attempt = 1; attempt <= settings.retries + 1; attempt++) {
      await phase(attempt === 1 ? "writing the patch" : `writing the patch again (attempt ${attempt}: the last one did not apply)`);
      const prompt = buildPatchPrompt({ task: job.task, tree: context.tree, treeOmitted: context.treeOmitted, files: context.files, ...(previous ? { previous } : {}) });
      const startedAt = performance.now();
      const { text: answer, usage } = await requestPatch(target, prompt, signal);
      deps.onModelCall?.(job, { attempt, model: target.name, usage, latencyMs: performance.now() - startedAt });
      const found = extractDiff(answer);
      if (!found) {
        previous = { diff: answer.slice(0, 2_000), error: "the answer held no unified diff" };
        continue;
      }
      await phase("checking it applies");
      const check = await checkPatch(tree, found.diff);
      if (!check.ok) {
        previous = { diff: found.diff, error: check.error };
        continue;
      }
      await blobs.write(job.id, "patch.diff", found.diff);
      const stat = describeDiffStat(summarizeDiff(found.diff));
      const summary = found.rest === "" ? stat : `${stat}. ${found.rest}`;
      if (!(await store.finishReady(job.id, worker, summary))) throw new LeaseLost();
      return;
    }
    await store.fail(job.id, `no patch that applies after ${settings.retries + 1} attempts; the last one: ${previous?.error ?? "no answer"}`, worker);
  } catch (error) {
    if (error instanceof LeaseLost) return;
    if (signal.aborted) return;
    const message = error instanceof ArchiveError ? `the upload was refused: ${error.message}` : `the job failed: ${error instanceof Error ? error.message : String(error)}`;
    await store.fail(job.id, message, worker);
  } finally {
    rmSync(tree, { recursive: true, force: true });
  }
}
