import { parsePatchPrompt } from "../smartplus/build-patch-prompt.ts";
import { firstWords } from "./generate-text.ts";

/** `append "<line>" to <path>` in the task: the change the sim makes. */
const APPEND = /append\s+"([^"\n]*)"\s+to\s+(\S+)/i;
/** A task that asks for a broken patch gets one whose context matches nothing (tests the retries). */
const BROKEN = /\bbreak the patch\b/i;

/** A hunk that appends `line` to a file whose text is `content`, keeping up to 3 lines of context. */
function appendHunk(path: string, content: string, line: string): string {
  const header = [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`];
  if (content === "") return [...header, "@@ -0,0 +1 @@", `+${line}`, ""].join("\n");
  const endsWithNewline = content.endsWith("\n");
  const lines = (endsWithNewline ? content.slice(0, -1) : content).split("\n");
  const context = lines.slice(-3);
  const start = lines.length - context.length + 1;
  const hunk = [...header];
  if (endsWithNewline) {
    hunk.push(`@@ -${start},${context.length} +${start},${context.length + 1} @@`, ...context.map((l) => ` ${l}`), `+${line}`);
  } else {
    // The last line gains the newline it lacked: git shows it removed and added again.
    const kept = context.slice(0, -1);
    const last = context.at(-1)!;
    hunk.push(`@@ -${start},${context.length} +${start},${context.length + 1} @@`, ...kept.map((l) => ` ${l}`), `-${last}`, "\\ No newline at end of file", `+${last}`, `+${line}`);
  }
  return [...hunk, ""].join("\n");
}

function newFile(path: string, line: string): string {
  return [`diff --git a/${path} b/${path}`, "new file mode 100644", "--- /dev/null", `+++ b/${path}`, "@@ -0,0 +1 @@", `+${line}`, ""].join("\n");
}

function brokenHunk(path: string, line: string): string {
  return [`diff --git a/${path} b/${path}`, `--- a/${path}`, `+++ b/${path}`, "@@ -1,1 +1,2 @@", " this line is not in the file", `+${line}`, ""].join("\n");
}

/**
 * The answer to a Smart+ patch request (a prompt built by smartplus/build-patch-prompt.ts): a
 * `diff` block that appends one line to one file, then a one-line summary; null for any other
 * prompt. The task decides: `append "<line>" to <path>` appends that line to that file (a path
 * not in the repository becomes a new file); otherwise the first listed file whose path the task
 * names, else the first listed file, gets `Simulated change by <model>: <task words>`.
 */
export function buildPatchAnswer(model: string, userText: string): string | null {
  const prompt = parsePatchPrompt(userText);
  if (!prompt) return null;
  const asked = APPEND.exec(prompt.task);
  let path: string | undefined;
  let line: string;
  if (asked) {
    line = asked[1]!;
    const named = asked[2]!;
    path = prompt.tree.includes(named) ? named : named.replace(/[.,;:!?)"'`]+$/, "");
  } else {
    line = `Simulated change by ${model}: ${firstWords(prompt.task, 8).join(" ")}`;
    const listed = [...prompt.files.keys()];
    path = listed.find((candidate) => prompt.task.includes(candidate)) ?? listed[0];
  }
  if (path === undefined) return "The repository holds no text file to change, so there is no patch.";
  const content = prompt.files.get(path);
  const diff = BROKEN.test(prompt.task) ? brokenHunk(path, line) : content !== undefined ? appendHunk(path, content, line) : prompt.tree.includes(path) ? brokenHunk(path, line) : newFile(path, line);
  const what = content === undefined && !prompt.tree.includes(path) ? `Creates ${path} with one line` : `Appends one line to ${path}`;
  return `\`\`\`diff\n${diff}\`\`\`\n\n${what}: "${line}".`;
}
