import { lstatSync, readFileSync, readlinkSync, type Stats } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pack } from "tar-stream";

async function git(args: readonly string[], cwd: string): Promise<{ code: number; stdout: Uint8Array; stderr: string }> {
  const child = Bun.spawn(["git", ...args], { cwd, stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).bytes(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

/** The repository root containing `cwd`; throws with git's reason when there is none. */
export async function findRepositoryRoot(cwd: string): Promise<string> {
  const result = await git(["rev-parse", "--show-toplevel"], cwd);
  if (result.code !== 0) throw new Error(`not inside a git repository (${result.stderr.trim()})`);
  return new TextDecoder().decode(result.stdout).trim();
}

/** What the pack command uploads: tracked files plus untracked ones that are not ignored. */
export async function listRepositoryFiles(root: string): Promise<string[]> {
  const result = await git(["ls-files", "-z", "--cached", "--others", "--exclude-standard"], root);
  if (result.code !== 0) throw new Error(`git ls-files failed: ${result.stderr.trim()}`);
  const paths = new TextDecoder().decode(result.stdout).split("\0").filter((path) => path !== "");
  return [...new Set(paths)];
}

/**
 * The same archive the pack command's `tar` makes: each listed path as it is on disk (files with
 * their executable bit, links as links, a submodule as its folder entry), gzipped. A path listed
 * by git but deleted since is left out, as tar would (with a warning there).
 */
export async function packRepository(root: string, paths: readonly string[]): Promise<{ archive: Uint8Array; files: number }> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on("data", (chunk) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve, reject) => {
    archive.on("end", () => resolve());
    archive.on("error", reject);
  });
  let files = 0;
  const add = (header: Parameters<typeof archive.entry>[0], body?: Buffer) =>
    new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      if (body) archive.entry(header, body, done);
      else archive.entry(header, done);
    });
  for (const path of paths) {
    const full = join(root, path);
    let stat: Stats;
    try {
      stat = lstatSync(full);
    } catch {
      continue;
    }
    if (stat.isSymbolicLink()) await add({ name: path, type: "symlink", linkname: readlinkSync(full) });
    else if (stat.isDirectory()) await add({ name: path, type: "directory", mode: 0o755 });
    else if (stat.isFile()) {
      await add({ name: path, mode: stat.mode & 0o111 ? 0o755 : 0o644, mtime: stat.mtime }, readFileSync(full));
      files++;
    }
  }
  archive.finalize();
  await ended;
  return { archive: gzipSync(Buffer.concat(chunks)), files };
}
