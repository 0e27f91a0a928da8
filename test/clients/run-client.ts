import type { ClientWorkspace } from "./create-client-workspace.ts";

export interface ClientRun {
  readonly exitCode: number | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** Longer than any client needs against the in-process sim; a hung client fails instead of stalling the file. */
const CLIENT_TIMEOUT_MS = 45_000;

/** Clients start slowly (seconds of CPU each); a few at once keeps concurrent tests from starving each other. */
const MAX_RUNNING = 3;
let running = 0;
const waiting: (() => void)[] = [];

async function acquire(): Promise<void> {
  if (running < MAX_RUNNING) {
    running++;
    return;
  }
  await new Promise<void>((resolve) => waiting.push(resolve));
}

function release(): void {
  const next = waiting.shift();
  if (next) next();
  else running--;
}

/**
 * Runs a client to completion in the workspace's repository. The environment is built from
 * scratch (PATH, HOME, locale and what the caller adds): no provider key, base URL or client
 * setting of the machine leaks in.
 */
export async function runClient(command: readonly string[], workspace: ClientWorkspace, env: Record<string, string>): Promise<ClientRun> {
  await acquire();
  try {
    const proc = Bun.spawn([...command], {
      cwd: workspace.repo,
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", HOME: workspace.home, LANG: "C.UTF-8", TERM: "dumb", NO_COLOR: "1", ...env },
      stdin: "ignore",
      stdout: "pipe",
      stderr: "pipe",
      timeout: CLIENT_TIMEOUT_MS,
    });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    return { exitCode, stdout, stderr };
  } finally {
    release();
  }
}

/** A run's output for an assertion message, so a failure shows what the client said. */
export const describeRun = (run: ClientRun): string => `exit ${run.exitCode}\n--- stdout\n${run.stdout}\n--- stderr\n${run.stderr}`;
