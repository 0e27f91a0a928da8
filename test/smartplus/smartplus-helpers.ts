import { mkdirSync, mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { pack, type Header } from "tar-stream";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";

/** The built-in config with a fast-polling Smart+ (tests wait on events, not on a 1 s poll). */
export function smartPlusConfig(overrides: NonNullable<FileConfig["smartPlus"]> = {}): FileConfig {
  return { ...DEFAULT_CONFIG, smartPlus: { pollIntervalMs: 50, turnWaitMs: 20_000, leaseTimeoutMs: 5_000, ...overrides } };
}

/** Runs a shell command the way a user pastes it; returns its exit code and output. */
export async function runShell(command: string, cwd: string): Promise<{ code: number; stdout: string; stderr: string }> {
  const child = Bun.spawn(["sh", "-c", command], { cwd, stdout: "pipe", stderr: "pipe", env: { ...process.env, GIT_CONFIG_NOSYSTEM: "1" } });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr };
}

/** A git repository in a temp folder: two committed files, one untracked, one ignored. */
export async function makeRepository(): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), "routelane-repo-"));
  mkdirSync(join(dir, "src"));
  writeFileSync(join(dir, "README.md"), "# Demo\n\nA small project.\n");
  writeFileSync(join(dir, "src", "app.ts"), "export const answer = 42;\n");
  writeFileSync(join(dir, ".gitignore"), "secret.txt\n");
  for (const command of ["git init -q", "git add -A", "git -c user.name=t -c user.email=t@example.com commit -qm init"]) {
    const result = await runShell(command, dir);
    if (result.code !== 0) throw new Error(`${command}: ${result.stderr}`);
  }
  writeFileSync(join(dir, "notes.txt"), "untracked but not ignored\n");
  writeFileSync(join(dir, "secret.txt"), "ignored\n");
  return dir;
}

/** The first ```sh block of a reply. */
export function shellBlock(text: string): string {
  const match = /```sh\n([\s\S]*?)\n```/.exec(text);
  if (!match) throw new Error(`no command in: ${text}`);
  return match[1]!;
}

export const jobIdIn = (text: string): string => /job_[0-9A-Za-z]+/.exec(text)?.[0] ?? "";
export const tokenIn = (text: string): string => /rlj_[0-9A-Za-z]+/.exec(text)?.[0] ?? "";

/** A gzipped tar of the given entries (header fields as tar-stream takes them). */
export async function makeArchive(entries: ReadonlyArray<Partial<Header> & { name: string; body?: string }>): Promise<Uint8Array> {
  const archive = pack();
  const chunks: Buffer[] = [];
  archive.on("data", (chunk) => void chunks.push(chunk as Buffer));
  const ended = new Promise<void>((resolve) => archive.on("end", () => resolve()));
  for (const { body, ...header } of entries) {
    await new Promise<void>((resolve, reject) => {
      const done = (error?: Error | null) => (error ? reject(error) : resolve());
      if (body !== undefined) archive.entry({ ...header, size: Buffer.byteLength(body) }, body, done);
      else archive.entry(header, done);
    });
  }
  archive.finalize();
  await ended;
  return gzipSync(Buffer.concat(chunks));
}
