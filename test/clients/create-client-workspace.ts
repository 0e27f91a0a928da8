import { mkdirSync, mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

export interface ClientWorkspace {
  /** A fresh HOME, so no real config, credential or history of the machine is read or written. */
  readonly home: string;
  /** A fresh git repository to run the client in. */
  readonly repo: string;
  /** A directory for the client's own config (CODEX_HOME, pi's agent dir…). */
  readonly config: string;
  remove(): void;
}

/** A temp HOME, config dir and git repository for one client run. */
export function createClientWorkspace(name: string): ClientWorkspace {
  const root = mkdtempSync(join(tmpdir(), `routelane-${name}-`));
  const home = join(root, "home");
  const repo = join(root, "repo");
  const config = join(root, "config");
  for (const dir of [home, repo, config]) mkdirSync(dir);
  const init = Bun.spawnSync(["git", "init", "-q", repo], { env: { PATH: process.env.PATH ?? "", HOME: home } });
  if (init.exitCode !== 0) throw new Error(`git init failed: ${init.stderr.toString()}`);
  return { home, repo, config, remove: () => rmSync(root, { recursive: true, force: true }) };
}
