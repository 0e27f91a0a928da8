import { closeSync, readSync } from "node:fs";
import type { ContextFile } from "./build-patch-prompt.ts";
import { openTreeFile } from "./open-tree-file.ts";

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

/** Up to `limit` bytes from the start of an open file. */
function readHead(fd: number, limit: number): Buffer {
  const buffer = Buffer.alloc(limit);
  let at = 0;
  while (at < limit) {
    const read = readSync(fd, buffer, at, limit - at, at);
    if (read === 0) break;
    at += read;
  }
  return buffer.subarray(0, at);
}

/**
 * A regular file of the tree, opened without following a link (a link, or a path through one,
 * reads as nothing): its size, whether it is binary, and its text when `readUpTo` allows.
 */
function readTreeText(root: string, path: string, readUpTo: number): { size: number; binary: boolean; text: string | null } | null {
  const opened = openTreeFile(root, path);
  if (!opened) return null;
  try {
    const size = opened.stat.size;
    const head = readHead(opened.fd, size <= readUpTo ? size : Math.min(size, SNIFF_BYTES));
    if (head.subarray(0, SNIFF_BYTES).includes(0)) return { size, binary: true, text: null };
    return { size, binary: false, text: size <= readUpTo ? head.toString("utf8") : null };
  } finally {
    closeSync(opened.fd);
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
 * left out. When not even the best file fits whole, its head goes in, marked truncated. No link is
 * followed: a path that is a link, or runs through one, is listed but never read.
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
    const file = readTreeText(root, path, SCORE_READ_LIMIT);
    if (!file) continue;
    if (file.binary) {
      binary++;
      continue;
    }
    candidates.push({ path, size: file.size, content: file.text, score: scoreFile(path, file.text, task, words) });
  }
  const textOf = (candidate: { path: string; size: number; content: string | null }): string | null => candidate.content ?? readTreeText(root, candidate.path, candidate.size)?.text ?? null;
  candidates.sort((a, b) => b.score - a.score || a.path.localeCompare(b.path));
  const files: ContextFile[] = [];
  const overhead = (path: string) => path.length * 2 + 32;
  for (const candidate of candidates) {
    const cost = candidate.size + overhead(candidate.path);
    if (cost > budget) continue;
    const content = textOf(candidate);
    if (content === null) continue;
    files.push({ path: candidate.path, content, truncated: false });
    budget -= cost;
  }
  const best = candidates[0];
  if (files.length === 0 && best && budget > overhead(best.path) + 256) {
    const head = textOf(best)?.slice(0, budget - overhead(best.path));
    if (head !== undefined) files.push({ path: best.path, content: head, truncated: true });
  }
  return { tree, treeOmitted: paths.length - tree.length, files, binary };
}
