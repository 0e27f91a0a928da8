import { fileURLToPath } from "node:url";

const SCRIPT = fileURLToPath(new URL("./initdb-process.ts", import.meta.url));

/**
 * Creates a new PGlite data directory by running initdb in a short-lived child process (Bun running
 * `initdb-process.ts`), for a start from source, which has no template to load. initdb runs a second
 * PGlite and its own wasm beside the first: in this process, even on a thread that is then stopped,
 * that took the process's RSS to about 1.1 GB for the rest of a first start's peak; in a child it
 * is the child's, gone when it exits, and this process opens the directory as an existing one.
 */
export async function createDataDirInProcess(location: string): Promise<void> {
  const child = Bun.spawn([process.execPath, SCRIPT, location], { stdin: "ignore", stdout: "ignore", stderr: "pipe" });
  const [code, stderr] = await Promise.all([child.exited, new Response(child.stderr).text()]);
  if (code !== 0) throw new Error(`initdb of the PGlite data directory failed (exit ${code}): ${stderr.trim().split("\n").slice(-5).join(" | ")}`);
}
