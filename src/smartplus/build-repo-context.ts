import { openSync, readSync, closeSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import type { ContextFile } from "./build-patch-prompt.ts";

/** The sim and the usual tokenizers average about four characters a token for code. */
const CHARS_PER_TOKEN = 4;
/** Bytes looked at to call a file binary (a NUL byte in them), as git does. */
const SNIFF_BYTES = 8000;
/** Files larger than this are not read for scoring (they may still be listed and, if chosen, read). */
const SCORE_READ_LIMIT = 1024 * 1024;

export interface RepoContext {
  readonly tree: readonly string[];
  readonly treeOmitted: number;
  readonly files: readonly ContextFile[];
  /** Files left out as binary. */
  readonly binary: number;
}

/** Lower-cased words of the task worth matching: 3+ characters, not the commonest English ones. */
const STOP = new Set(["the", "and", "for", "that", "this", "with", "from", "into", "when", "then", "than", "make", "should", "please", "file", "files", "code", "add", "fix"]);
function taskWords(task: string): string[] {
  const words = new Set<string>();
  for (const word of task.toLowerCase().split(/[^a-z0-9_.\-/]+/)) if (word.length >= 3 && !STOP.has(word)) words.add(word);
  return [...words];
}

function isBinary(path: string): boolean {
  const fd = openSync(path, "r");
  try {
    const buffer = Buffer.alloc(SNIFF_BYTES);
    const read = readSync(fd, buffer, 0, SNIFF_BYTES, 0);
    return buffer.subarray(0, read).includes(0);
  } finally {
    closeSync(fd);
  }
}

/** How much a file matters to the task: its path named or matching task words, then content hits. */
function scoreFile(path: string, content: string | null, task: string, words: readonly string[]): number {
  const lowerPath = path.toLowerCase();
  let score = task.includes(path) ? 1000 : 0;
  const base = lowerPath.split("/").at(-1) ?? lowerPath;
  for (const word of words) {
    if (base === word || base.startsWith(`${word}.`)) score += 100;
    else if (lowerPath.includes(word)) score += 20;
  }
  if (content !== null && words.length > 0) {
    const lower = content.toLowerCase();
    for (const word of words) {
      let hits = 0;
      for (let at = lower.indexOf(word); at >= 0 && hits < 20; at = lower.indexOf(word, at + word.length)) hits++;
      score += hits;
    }
  }
  // Of equals, the entry points and docs near the root read first.
  return score - path.split("/").length * 0.01;
}

/**
 * The repository as the model sees it within `budgetTokens`: the tree of all paths (cut when it
 * alone would take over a quarter of the budget), then the files most relevant to the task by
 * path and content match, whole, best first, skipping ones that no longer fit; binary files are
 * left out. When not even the best file fits whole, its head goes in, marked truncated.
 */
export function buildRepoContext(root: string, paths: readonly string[], task: string, budgetTokens: number): RepoContext {
  let budget = budgetTokens * CHARS_PER_TOKEN;
  const treeBudget = Math.floor(budget / 4);
  const tree: string[] = [];
  let treeChars = 0;
  for (const path of paths) {
    if (treeChars + path.length + 1 > treeBudget) break;
    tree.push(path);
    treeChars += path.length + 1;
  }
  budget -= treeChars;
  const words = taskWords(task);
  const candidates: { path: string; size: number; score: number; content: string | null }[] = [];
  let binary = 0;
  for (const path of paths) {
    const full = join(root, path);
    let size: number;
    try {
      const stat = statSync(full);
      if (!stat.isFile()) continue;
      size = stat.size;
    } catch {
      continue;
    }
    if (isBinary(full)) {
      binary++;
      continue;
    }
    const content = size <= SCORE_READ_LIMIT ? readFileSync(full, "utf8") : null;
    candidates.push({ path, size, content, score: scoreFile(path, content, task, words) });
  }
  candidates.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  const files: ContextFile[] = [];
  const overhead = (path: string) => path.length * 2 + 32;
  for (const candidate of candidates) {
    const cost = candidate.size + overhead(candidate.path);
    if (cost > budget) continue;
    files.push({ path: candidate.path, content: candidate.content ?? readFileSync(join(root, candidate.path), "utf8"), truncated: false });
    budget -= cost;
  }
  const best = candidates[0];
  if (files.length === 0 && best && budget > overhead(best.path) + 256) {
    const head = (best.content ?? readFileSync(join(root, best.path), "utf8")).slice(0, budget - overhead(best.path));
    files.push({ path: best.path, content: head, truncated: true });
  }
  return { tree, treeOmitted: paths.length - tree.length, files, binary };
}
