import type { Socket, TCPSocketListener } from "bun";

const REDIS = new URL(process.env.REDIS_URL ?? "redis://127.0.0.1:6379");

/**
 * A TCP proxy in front of the shared test Redis that a test can take Redis away with, mid-run,
 * without touching the server other test files use.
 */
export interface RedisProxy {
  /** `redis://127.0.0.1:<port>`: give this to the code under test. */
  readonly url: string;
  /** Connections the proxy has accepted, in any mode (a connection attempt of the code under test). */
  readonly accepted: number;
  /** Resolves once more than `count` connections have been accepted. */
  acceptedMoreThan(count: number): Promise<void>;
  /** Passes bytes both ways (the start state). */
  forward(): void;
  /** Passes bytes both ways, what goes to Redis `ms` late (in order): a slow link. */
  delay(ms: number): void;
  /** New connections reach Redis `ms` after they are accepted (a slow connect, as over TLS far away); then bytes pass. */
  delayConnect(ms: number): void;
  /** Redis gone: open connections are cut, new ones accepted and closed at once. */
  cut(): void;
  /** Redis silent: connections stay open, nothing reaches Redis and nothing comes back. */
  blackhole(): void;
  stop(): void;
}

interface Pair {
  upstream: Socket<undefined> | undefined;
  /** Client bytes that arrived before the upstream connection was open. */
  pending: Uint8Array[];
}

export function startRedisProxy(): RedisProxy {
  let mode: "forward" | "cut" | "blackhole" = "forward";
  let delayMs = 0;
  let connectDelayMs = 0;
  let accepted = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const clients = new Set<Socket<Pair>>();

  const listener: TCPSocketListener<Pair> = Bun.listen<Pair>({
    hostname: "127.0.0.1",
    port: 0,
    socket: {
      open(client) {
        accepted += 1;
        for (const waiter of waiters.filter((w) => accepted > w.count)) {
          waiters.splice(waiters.indexOf(waiter), 1);
          waiter.resolve();
        }
        client.data = { upstream: undefined, pending: [] };
        if (mode === "cut") {
          client.end();
          return;
        }
        clients.add(client);
        if (mode === "blackhole") return;
        const reach = (): Promise<unknown> => Bun.connect({
          hostname: REDIS.hostname,
          port: Number(REDIS.port || 6379),
          socket: {
            open(upstream) {
              client.data.upstream = upstream;
              for (const chunk of client.data.pending) upstream.write(chunk);
              client.data.pending = [];
            },
            data(_upstream, chunk) {
              if (mode === "forward") client.write(chunk);
            },
            close() {
              client.end();
            },
            error() {
              client.end();
            },
          },
        }).catch(() => client.end());
        if (connectDelayMs === 0) void reach();
        else setTimeout(() => void reach(), connectDelayMs);
      },
      data(client, chunk) {
        if (mode !== "forward") return;
        const pass = (bytes: Uint8Array): void => {
          if (client.data.upstream) client.data.upstream.write(bytes);
          else client.data.pending.push(bytes);
        };
        if (delayMs === 0) pass(chunk);
        else {
          const bytes = new Uint8Array(chunk);
          setTimeout(() => pass(bytes), delayMs);
        }
      },
      close(client) {
        clients.delete(client);
        client.data.upstream?.end();
      },
      error(client) {
        clients.delete(client);
        client.data.upstream?.end();
      },
    },
  });

  return {
    url: `redis://127.0.0.1:${listener.port}`,
    get accepted() {
      return accepted;
    },
    acceptedMoreThan(count) {
      if (accepted > count) return Promise.resolve();
      return new Promise((resolve) => waiters.push({ count, resolve }));
    },
    forward() {
      mode = "forward";
      delayMs = 0;
    },
    delay(ms) {
      mode = "forward";
      delayMs = ms;
    },
    delayConnect(ms) {
      connectDelayMs = ms;
    },
    cut() {
      mode = "cut";
      for (const client of clients) {
        client.data.upstream?.end();
        client.end();
      }
      clients.clear();
    },
    blackhole() {
      mode = "blackhole";
    },
    stop() {
      for (const client of clients) client.end();
      listener.stop(true);
    },
  };
}
