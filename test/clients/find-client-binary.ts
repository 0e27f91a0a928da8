import { existsSync } from "node:fs";
import { join } from "node:path";

const NODE_MODULES = join(import.meta.dir, "../../node_modules");

/** How to start a client, or why it cannot run here (the test is then skipped with that reason). */
export type ClientBinary = { readonly command: readonly string[]; readonly skip?: undefined } | { readonly command?: undefined; readonly skip: string };

export type ClientName = "claude" | "codex" | "pi";

/** Node runs the JavaScript entry points as their users do; bun is the stand-in on a machine without node. */
const scriptRunner = (): string => Bun.which("node") ?? process.execPath;

const NATIVE_PLATFORMS = new Set(["linux-x64", "linux-arm64", "darwin-x64", "darwin-arm64", "win32-x64", "win32-arm64"]);

function findClaude(): ClientBinary {
  const platform = `${process.platform}-${process.arch}`;
  if (!NATIVE_PLATFORMS.has(platform)) return { skip: `Claude Code ships no native binary for ${platform}` };
  // The platform package's binary itself: the wrapper's bin is a placeholder until its postinstall runs.
  const exe = process.platform === "win32" ? "claude.exe" : "claude";
  for (const suffix of ["", "-musl"]) {
    const path = join(NODE_MODULES, `@anthropic-ai/claude-code-${platform}${suffix}`, exe);
    if (existsSync(path)) return { command: [path] };
  }
  throw new Error(`@anthropic-ai/claude-code-${platform} is not installed: run bun install`);
}

function findScript(packageDir: string, script: string, platformPackage?: string): ClientBinary {
  const platform = `${process.platform}-${process.arch}`;
  if (platformPackage !== undefined && !NATIVE_PLATFORMS.has(platform)) return { skip: `${platformPackage} ships no native binary for ${platform}` };
  const path = join(NODE_MODULES, packageDir, script);
  if (!existsSync(path)) throw new Error(`${packageDir} is not installed: run bun install`);
  return { command: [scriptRunner(), path] };
}

/** The command line that starts a client installed as a devDependency, never one from the machine's PATH. */
export function findClientBinary(name: ClientName): ClientBinary {
  switch (name) {
    case "claude":
      return findClaude();
    case "codex":
      return findScript("@openai/codex", "bin/codex.js", "@openai/codex");
    case "pi":
      return findScript("@mariozechner/pi-coding-agent", "dist/cli.js");
  }
}
