/** Opens and closes the prompt a Smart+ worker sends; the simulated upstream looks for it. */
export const PATCH_REQUEST_OPEN = "<routelane-smartplus-patch-request>";
export const PATCH_REQUEST_CLOSE = "</routelane-smartplus-patch-request>";

/** A file of the context: whole, or its head when it alone would not fit. */
export interface ContextFile {
  readonly path: string;
  readonly content: string;
  readonly truncated: boolean;
}

export interface PatchPrompt {
  readonly task: string;
  /** Every path of the repository. */
  readonly tree: readonly string[];
  /** Paths left out of the tree listing because it was too long (0 = none). */
  readonly treeOmitted: number;
  readonly files: readonly ContextFile[];
  /** The attempt before, when it did not apply: its diff and git's complaint. */
  readonly previous?: { readonly diff: string; readonly error: string };
}

const fileOpen = (path: string, truncated: boolean) => `<<<FILE ${path}${truncated ? " (truncated)" : ""}>>>`;
const fileClose = (path: string) => `<<<END ${path}>>>`;

const INSTRUCTIONS = [
  "You are changing a repository. Below are the task, the list of every file, and the contents of the files most relevant to it.",
  "Answer with one unified diff in `git diff` form (paths with a/ and b/ prefixes, relative to the repository root, correct hunk headers and context lines),",
  "inside a single ```diff fenced block, then one short paragraph that says what the change does. Change only what the task needs.",
].join(" ");

/**
 * The whole request as one user message: the sim (and a reviewer reading logs) can tell the parts
 * apart by their headings, and a file's content sits between markers that name it, so it is
 * carried byte for byte (the newline before the closing marker is the prompt's, not the file's).
 */
export function buildPatchPrompt(prompt: PatchPrompt): string {
  const parts = [PATCH_REQUEST_OPEN, INSTRUCTIONS, "", "## Task", prompt.task.trim(), "", `## Repository tree (${prompt.tree.length + prompt.treeOmitted} files)`];
  parts.push(...prompt.tree);
  if (prompt.treeOmitted > 0) parts.push(`… and ${prompt.treeOmitted} more`);
  parts.push("", "## Files");
  for (const file of prompt.files) parts.push(fileOpen(file.path, file.truncated), `${file.content}`, fileClose(file.path));
  if (prompt.previous) {
    parts.push("", "## Previous attempt", "This diff did not apply:", "```diff", prompt.previous.diff.trimEnd(), "```", `git apply --check said: ${prompt.previous.error.trim()}`, "Answer with a corrected diff.");
  }
  parts.push(PATCH_REQUEST_CLOSE);
  return parts.join("\n");
}

/** The parts of a prompt built above, as the simulated upstream reads them back. */
export interface ParsedPatchPrompt {
  readonly task: string;
  readonly tree: readonly string[];
  readonly files: ReadonlyMap<string, string>;
}

export function parsePatchPrompt(text: string): ParsedPatchPrompt | null {
  const start = text.indexOf(PATCH_REQUEST_OPEN);
  if (start < 0) return null;
  const body = text.slice(start);
  const section = (heading: RegExp, next: string): string => {
    const match = heading.exec(body);
    if (!match) return "";
    const from = match.index + match[0].length;
    const end = body.indexOf(next, from);
    return body.slice(from, end < 0 ? undefined : end);
  };
  const task = section(/\n## Task\n/, "\n## Repository tree").trim();
  const tree = section(/\n## Repository tree \(\d+ files\)\n/, "\n\n## Files").split("\n").filter((line) => line !== "" && !line.startsWith("… and "));
  const files = new Map<string, string>();
  const marker = /<<<FILE (.+?)( \(truncated\))?>>>\n/g;
  for (let match = marker.exec(body); match; match = marker.exec(body)) {
    const path = match[1]!;
    const from = match.index + match[0].length;
    const end = body.indexOf(`\n${fileClose(path)}`, from);
    if (end < 0) break;
    if (!match[2]) files.set(path, body.slice(from, end));
    marker.lastIndex = end;
  }
  return { task, tree, files };
}
