import { RedisClient, type Socket } from "bun";

/**
 * The commands a Redis server runs for its clients, seen through MONITOR on a connection of its
 * own: how a test counts the round trips of code it cannot hand a counting `send` (a whole
 * gateway). Commands run inside scripts are left out; a script call counts once.
 */
export interface RedisCommandWatch {
  /** The commands seen since the start (or `clear`) that name `text` anywhere: each as its words, the command's name first, upper-cased. */
  commands(text: string): string[][];
  clear(): void;
  /** Resolves once every command Redis ran before this call has been seen. */
  sync(): Promise<void>;
  stop(): void;
}

/** The quoted words of a MONITOR line (`1700000000.1 [0 127.0.0.1:5000] "SET" "k" "v"`); escapes are kept as they came. */
function wordsOf(line: string): string[] {
  return [...line.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => m[1]!);
}

export async function watchRedisCommands(url: string): Promise<RedisCommandWatch> {
  const { hostname, port } = new URL(url);
  let lines: string[] = [];
  let partial = "";
  const waiters: { marker: string; resolve: () => void }[] = [];
  const decoder = new TextDecoder();
  let started: (() => void) | undefined;
  const ready = new Promise<void>((resolve) => (started = resolve));
  const socket: Socket<undefined> = await Bun.connect({
    hostname,
    port: Number(port || 6379),
    socket: {
      data(_socket, chunk) {
        const text = partial + decoder.decode(chunk, { stream: true });
        const parts = text.split("\r\n");
        partial = parts.pop() ?? "";
        for (const part of parts) {
          if (part === "+OK") started?.();
          if (!part.startsWith("+") || part.includes(" lua] ")) continue;
          lines.push(part);
          for (const waiter of waiters.filter((w) => part.includes(w.marker))) {
            waiters.splice(waiters.indexOf(waiter), 1);
            waiter.resolve();
          }
        }
      },
    },
  });
  socket.write("MONITOR\r\n");
  await ready;
  const echo = new RedisClient(url);
  return {
    commands: (text) =>
      lines
        .filter((line) => line.includes(text))
        .map((line) => {
          const words = wordsOf(line);
          return [words[0]!.toUpperCase(), ...words.slice(1)];
        }),
    clear() {
      lines = [];
    },
    async sync() {
      const marker = `watch-sync-${crypto.randomUUID()}`;
      const seen = new Promise<void>((resolve) => waiters.push({ marker, resolve }));
      await echo.send("ECHO", [marker]);
      await seen;
    },
    stop() {
      socket.end();
      echo.close();
    },
  };
}
