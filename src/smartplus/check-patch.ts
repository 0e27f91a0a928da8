import { lstatSync } from "node:fs";
import { devNull } from "node:os";
import { join } from "node:path";

export interface PatchCheck {
  readonly ok: boolean;
  /** git's complaint when it does not apply. */
  readonly error: string;
}

async function runGit(args: readonly string[], cwd: string, stdin?: string): Promise<{ code: number; stderr: string }> {
  const child = Bun.spawn(["git", ...args], {
    cwd,
    stdin: stdin === undefined ? "ignore" : new TextEncoder().encode(stdin),
    stdout: "ignore",
    stderr: "pipe",
    // The tree must be its own repository: never one the scratch folder happens to sit in. No
    // config but the tree's own (a filter or hook defined for this machine's user would otherwise
    // run on the tenant's files), and none of the gateway's environment (its keys) either.
    env: {
      PATH: process.env.PATH ?? "/usr/bin:/bin",
      LC_ALL: "C",
      GIT_CEILING_DIRECTORIES: join(cwd, ".."),
      GIT_CONFIG_NOSYSTEM: "1",
      GIT_CONFIG_GLOBAL: devNull,
      GIT_TERMINAL_PROMPT: "0",
    },
  });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  return { code, stderr };
}

/**
 * `git apply --check` of the diff against the extracted tree. The tree is made a repository of its
 * own first (`git init`), so that git reads paths from its root whatever folder holds it. The tree
 * may hold symbolic links: git reads a link as its target text and refuses to read or write any
 * path beyond one ("beyond a symbolic link"), and `--check` writes nothing.
 */
export async function checkPatch(tree: string, diff: string): Promise<PatchCheck> {
  if (!lstatSync(join(tree, ".git"), { throwIfNoEntry: false })) {
    const init = await runGit(["init", "-q"], tree);
    if (init.code !== 0) return { ok: false, error: `git init failed: ${init.stderr.trim()}` };
  }
  const check = await runGit(["apply", "--check", "-"], tree, diff);
  return check.code === 0 ? { ok: true, error: "" } : { ok: false, error: check.stderr.trim() || `git apply exited with ${check.code}` };
}
