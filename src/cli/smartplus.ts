import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { parseArgs } from "node:util";
import { answerInfoFlags } from "../ops/answer-info-flags.ts";
import { findRepositoryRoot, listRepositoryFiles, packRepository } from "../smartplus/pack-repository.ts";

const USAGE = `Usage: bun run cli smartplus <pack|apply> --job ID --token TOKEN [--url URL] [--repo DIR]

  pack    upload the repository around the current folder (tracked files plus untracked ones
          that are not ignored) to the Smart+ job
  apply   download the job's patch and apply it with git apply

Both take the job id and job token from the command Smart+ printed. --url defaults to
$ROUTELANE_URL or http://127.0.0.1:8787; --repo to the current folder (\`bun run\` starts
scripts in the Routelane checkout, so pass --repo there). --help prints this, --version the version.`;

const DEFAULT_URL = "http://127.0.0.1:8787";

class CliError extends Error {}

const mib = (bytes: number): string => `${(bytes / 1024 / 1024).toFixed(1)} MiB`;

/** A one-line progress bar on stderr, redrawn in place; plain lines when stderr is not a terminal. */
export function drawProgress(label: string, done: number, total: number | null, width = 30): string {
  if (total === null || total <= 0) return `${label} ${mib(done)}`;
  const share = Math.min(1, done / total);
  const filled = Math.round(share * width);
  return `${label} [${"#".repeat(filled)}${".".repeat(width - filled)}] ${String(Math.round(share * 100)).padStart(3)}% ${mib(done)}/${mib(total)}`;
}

function progress(label: string, total: number | null): (done: number, final?: boolean) => void {
  const tty = process.stderr.isTTY === true;
  let last = -1;
  return (done, final = false) => {
    const pct = total ? Math.floor((done / total) * 100) : Math.floor(done / 1_048_576);
    if (!final && pct === last) return;
    last = pct;
    if (tty) process.stderr.write(`\r${drawProgress(label, done, total)}${final ? "\n" : ""}`);
    else if (final) process.stderr.write(`${drawProgress(label, done, total)}\n`);
  };
}

/** The error message of a handoff answer (Messages-style shape), or its status. */
async function failure(response: Response): Promise<string> {
  const text = await response.text();
  try {
    const body = JSON.parse(text) as { error?: { message?: string } };
    return `${response.status}: ${body.error?.message ?? text}`;
  } catch {
    return `${response.status}: ${text.slice(0, 200)}`;
  }
}

async function pack(url: string, job: string, token: string, repo: string): Promise<void> {
  const root = await findRepositoryRoot(repo);
  const paths = await listRepositoryFiles(root);
  const { archive, files } = await packRepository(root, paths);
  process.stderr.write(`packed ${files} files from ${root} (${mib(archive.byteLength)})\n`);
  const show = progress("uploading", archive.byteLength);
  let sent = 0;
  const chunk = 64 * 1024;
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      if (sent >= archive.byteLength) {
        show(sent, true);
        return controller.close();
      }
      const next = archive.subarray(sent, sent + chunk);
      sent += next.byteLength;
      show(sent);
      controller.enqueue(next);
    },
  });
  const response = await fetch(`${url}/v1/handoff/${job}/upload`, {
    method: "POST",
    headers: { authorization: `Bearer ${token}`, "content-type": "application/gzip" },
    body,
    duplex: "half",
  } as RequestInit);
  if (!response.ok) throw new CliError(`upload failed: ${await failure(response)}`);
  const result = (await response.json()) as { files: number; bytes: number };
  process.stdout.write(`uploaded ${result.files} files (${mib(result.bytes)}) to job ${job}; ask Smart+ for progress in the conversation.\n`);
}

async function apply(url: string, job: string, token: string, repo: string): Promise<void> {
  const root = await findRepositoryRoot(repo);
  const response = await fetch(`${url}/v1/handoff/${job}/patch`, { headers: { authorization: `Bearer ${token}` } });
  if (!response.ok || !response.body) throw new CliError(`download failed: ${await failure(response)}`);
  const declared = Number(response.headers.get("content-length") ?? "");
  const show = progress("downloading", Number.isFinite(declared) && declared > 0 ? declared : null);
  const chunks: Uint8Array[] = [];
  let received = 0;
  for await (const chunk of response.body) {
    chunks.push(chunk);
    received += chunk.byteLength;
    show(received);
  }
  show(received, true);
  const patch = Buffer.concat(chunks);
  const child = Bun.spawn(["git", "apply", "-v", "-"], { cwd: root, stdin: patch, stdout: "inherit", stderr: "pipe" });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  process.stderr.write(stderr);
  if (code !== 0) {
    const saved = join(mkdtempSync(join(tmpdir(), "routelane-patch-")), `${job}.diff`);
    writeFileSync(saved, patch);
    throw new CliError(
      `git apply failed, so nothing was changed: the files the patch expects differ from the ones here (changed since the upload?).\n` +
        `The patch is saved at ${saved}; try \`git apply --3way ${saved}\` or ask Smart+ for a new job.`,
    );
  }
  process.stdout.write(`applied the patch of job ${job} in ${root}\n`);
}

export async function runSmartPlusCli(argv: readonly string[]): Promise<number> {
  if (answerInfoFlags(argv, USAGE, (text) => process.stdout.write(`${text}\n`))) return 0;
  const args = argv[0] === "smartplus" ? argv.slice(1) : argv;
  const { values, positionals } = parseArgs({
    args: [...args],
    options: { job: { type: "string" }, token: { type: "string" }, url: { type: "string" }, repo: { type: "string" }, help: { type: "boolean", short: "h" } },
    allowPositionals: true,
  });
  const command = positionals[0];
  if (values.help || (command !== "pack" && command !== "apply")) {
    process.stderr.write(`${USAGE}\n`);
    return values.help ? 0 : 2;
  }
  if (!values.job || !values.token) {
    process.stderr.write(`--job and --token are required\n\n${USAGE}\n`);
    return 2;
  }
  const url = (values.url ?? process.env.ROUTELANE_URL ?? DEFAULT_URL).replace(/\/+$/, "");
  try {
    const repo = values.repo ?? process.cwd();
    await (command === "pack" ? pack(url, values.job, values.token, repo) : apply(url, values.job, values.token, repo));
    return 0;
  } catch (error) {
    process.stderr.write(`\n${error instanceof Error ? error.message : String(error)}\n`);
    return 1;
  }
}

if (import.meta.main) process.exit(await runSmartPlusCli(process.argv.slice(2)));
