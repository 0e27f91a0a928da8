import type { Subprocess } from "bun";
import { join } from "node:path";
import { readLinesUntil } from "./read-lines-until.ts";

const ROOT = join(import.meta.dir, "..", "..");

export interface SpawnedGateway {
  readonly process: Subprocess<"ignore", "pipe", "pipe">;
  readonly url: string;
  /** Everything printed to stdout up to and including the listening line (and the key, if any). */
  readonly startupLines: string[];
}


export interface SpawnOptions {
  /** The start command (default `bun run src/main.ts`); `["bun", "start"]` runs it as `bun start` does. */
  readonly command?: readonly string[];
  /** In a process group of its own (its pid is the group's id), as a supervisor or a shell starts it. */
  readonly detached?: boolean;
}

/** Starts `bun run src/main.ts` as users do and waits for it to listen (or exit); without Redis unless `env` names one. */
export async function spawnGateway(env: Record<string, string | undefined>, waitForKey: boolean, options: SpawnOptions = {}): Promise<SpawnedGateway> {
  const childEnv: Record<string, string> = {};
  // The runner's Redis (CI sets REDIS_URL) is the gateway's only when the test passes it, with a
  // config of its own prefix: under the default one its limits, pins and cached answers outlived
  // the run (month counters for 40 days).
  const { REDIS_URL: _runnersRedis, ...inherited } = process.env;
  for (const [name, value] of Object.entries({ ...inherited, ...env })) if (value !== undefined) childEnv[name] = value;
  const command = options.command ?? ["bun", "run", "src/main.ts"];
  const child = Bun.spawn([...command], { cwd: ROOT, env: childEnv, stdin: "ignore", stdout: "pipe", stderr: "pipe", detached: options.detached ?? false });
  const lines = await readLinesUntil(child.stdout, (seen) => {
    const listening = seen.some((l) => l.includes("listening on"));
    return listening && (!waitForKey || seen.some((l) => /^\s+rl_[A-Za-z0-9]+$/.test(l)));
  });
  const match = lines.map((l) => /listening on (http:\/\/\S+)/.exec(l)).find((m) => m);
  if (!match) {
    child.kill();
    throw new Error(`gateway did not start: ${lines.join("\n")}\n${await new Response(child.stderr).text()}`);
  }
  return { process: child, url: match[1]!, startupLines: lines };
}
