import type { Child } from "./child-group.ts";

const POLL_MS = 50;

/** Whether a TCP connection to host:port is accepted. */
async function portAccepts(hostname: string, port: number): Promise<boolean> {
  try {
    const socket = await Bun.connect({ hostname, port, socket: { data() {} } });
    socket.end();
    return true;
  } catch {
    return false;
  }
}

/** Whether `GET url` answers 2xx. */
async function httpAnswers(url: string): Promise<boolean> {
  try {
    const response = await fetch(url, { signal: AbortSignal.timeout(1000) });
    await response.arrayBuffer();
    return response.ok;
  } catch {
    return false;
  }
}

export type ReadyCheck =
  { readonly kind: "port"; readonly hostname: string; readonly port: number } | { readonly kind: "http"; readonly url: string };

/**
 * Polls until the child is ready. Fails at once (with the child's output) if it exits first, so a
 * broken start names its cause instead of timing out.
 */
export async function waitUntilReady(child: Child, check: ReadyCheck, timeoutMs = 30_000): Promise<void> {
  const deadline = performance.now() + timeoutMs;
  let exited = false;
  void child.exited.then(() => {
    exited = true;
  });
  while (performance.now() < deadline) {
    if (exited) throw new Error(`${child.name} exited before it was ready (code ${child.proc.exitCode}):\n${child.output()}`);
    const ready = check.kind === "port" ? await portAccepts(check.hostname, check.port) : await httpAnswers(check.url);
    if (ready) return;
    await Bun.sleep(POLL_MS);
  }
  throw new Error(`${child.name} not ready after ${timeoutMs} ms:\n${child.output()}`);
}
