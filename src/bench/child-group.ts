import type { Subprocess } from "bun";

/** One spawned child and the tail of what it printed, kept for the error message if it dies. */
export interface Child {
  readonly name: string;
  readonly proc: Subprocess<"ignore", "pipe", "pipe">;
  /** Last few KB of stdout+stderr. */
  output(): string;
  /** Resolves with the exit code once the process ended. */
  readonly exited: Promise<number>;
  /** Resolves once both pipes were read to the end, i.e. `output()` is complete. */
  readonly drained: Promise<void>;
}

export interface SpawnOptions {
  readonly server?: boolean;
  readonly stderr?: (chunk: Uint8Array) => Uint8Array;
}

export interface ChildGroup {
  /**
   * `server`: expected to run until stopped, so `assertAlive` checks it. `stderr`: sees each chunk
   * of the child's stderr first and gives back what the kept tail gets of it.
   */
  spawn(name: string, cmd: string[], env: Record<string, string | undefined>, options?: SpawnOptions): Child;
  /** Throws, with its output, if a child that should still serve has exited (e.g. crashed under load). */
  assertAlive(): void;
  /** SIGTERM one child (SIGKILL after `graceMs`) and wait for it; it is no longer checked by `assertAlive`. */
  stop(child: Child, graceMs?: number): Promise<void>;
  /** SIGTERM everything still running, SIGKILL what has not exited after `graceMs`. Idempotent. */
  stopAll(graceMs?: number): Promise<void>;
}

const TAIL_BYTES = 8 * 1024;

/**
 * Drains a child's pipe for as long as it lives: an undrained pipe fills up and blocks the child,
 * which would show up as latency in the bench. Only a short tail is kept, as raw chunks: the
 * gateway logs every request, and decoding and concatenating each line here would spend the
 * bench's own CPU — on the same two cores — only while the gateway runs.
 */
async function drain(stream: ReadableStream<Uint8Array>, append: (chunk: Uint8Array) => void): Promise<void> {
  for await (const chunk of stream) append(chunk);
}

const keepSome = (append: (chunk: Uint8Array) => void, chunk: Uint8Array): void => {
  if (chunk.byteLength > 0) append(chunk);
};

/** The last `TAIL_BYTES` of what was appended (whole chunks, cut on output). */
function createTail(): { append: (chunk: Uint8Array) => void; text: () => string } {
  let chunks: Uint8Array[] = [];
  let bytes = 0;
  return {
    append(chunk) {
      chunks.push(chunk);
      bytes += chunk.byteLength;
      if (chunks.length > 64 && bytes - chunks[0]!.byteLength > TAIL_BYTES) {
        let drop = 0;
        while (drop < chunks.length - 1 && bytes - chunks[drop]!.byteLength > TAIL_BYTES) bytes -= chunks[drop++]!.byteLength;
        chunks = chunks.slice(drop);
      }
    },
    text: () => new TextDecoder().decode(Buffer.concat(chunks)).slice(-TAIL_BYTES),
  };
}

/** Children that are stopped together, so neither an error nor Ctrl-C leaves one running. */
export function createChildGroup(): ChildGroup {
  const children: Child[] = [];
  // Load generators (wrk) end on their own; only long-running servers are checked for liveness.
  const servers = new Set<Child>();
  return {
    assertAlive() {
      for (const child of servers) {
        if (child.proc.exitCode !== null || child.proc.signalCode !== null) {
          const how = child.proc.signalCode ?? `code ${child.proc.exitCode}`;
          throw new Error(`${child.name} exited (${how}) during the bench; its last output:\n${child.output()}`);
        }
      }
    },
    spawn(name, cmd, env, options = {}) {
      const proc = Bun.spawn(cmd, { env, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
      const tail = createTail();
      const { stderr } = options;
      const drained = Promise.all([drain(proc.stdout, tail.append), drain(proc.stderr, stderr ? (chunk) => keepSome(tail.append, stderr(chunk)) : tail.append)]).then(
        () => {},
        () => {},
      );
      const child: Child = { name, proc, output: tail.text, exited: proc.exited, drained };
      children.push(child);
      if (options.server) servers.add(child);
      return child;
    },
    async stop(child, graceMs = 10_000) {
      servers.delete(child);
      if (child.proc.exitCode !== null || child.proc.signalCode !== null) return;
      child.proc.kill("SIGTERM");
      const timeout = new Promise<"timeout">((resolve) => setTimeout(resolve, graceMs, "timeout").unref());
      if ((await Promise.race([child.exited, timeout])) === "timeout") {
        child.proc.kill("SIGKILL");
        await child.exited;
      }
    },
    async stopAll(graceMs = 3000) {
      const running = children.filter((c) => c.proc.exitCode === null && c.proc.signalCode === null);
      for (const child of running) child.proc.kill("SIGTERM");
      const timeout = new Promise<"timeout">((resolve) => setTimeout(resolve, graceMs, "timeout").unref());
      await Promise.all(
        running.map(async (child) => {
          if ((await Promise.race([child.exited, timeout])) === "timeout") {
            child.proc.kill("SIGKILL");
            await child.exited;
          }
        }),
      );
    },
  };
}
