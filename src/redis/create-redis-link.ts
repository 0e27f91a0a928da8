import { RedisClient } from "bun";
import { withTimeout } from "../canonical/with-timeout.ts";

/** Redis could not be reached, did not answer in time, or is in its backoff after a failure: use the in-process fallback. */
export class RedisUnavailableError extends Error {
  override readonly name = "RedisUnavailableError";
}

/** A change of Redis's state, for one structured log line each. */
export type RedisStateChange =
  | { readonly state: "down"; readonly error: string; readonly retryInMs: number }
  | { readonly state: "up"; readonly downForMs: number };

export interface RedisLinkOptions {
  readonly url: string;
  /** Longest a request waits for one command (or for the connection before it). */
  readonly commandTimeoutMs?: number;
  /** The first backoff after a failure; each failed probe doubles it, up to `maxBackoffMs`. */
  readonly backoffMs?: number;
  readonly maxBackoffMs?: number;
  readonly onChange?: (change: RedisStateChange) => void;
  readonly now?: () => number;
}

/**
 * The gateway's one way to Redis, shared by limits, conversation pins and the response cache's
 * second level, with the health of the link. After a failure (refused, dropped, or no answer
 * within the command timeout) it stops asking Redis for a backoff period: every caller learns
 * `up === false` at once and uses its in-process fallback, so an outage costs a request nothing
 * after the first failure. A probe (connect and PING on a fresh connection, off any request's path)
 * ends the backoff, or doubles it. One state change, one `onChange` call: never one per command.
 */
export interface RedisLink {
  /** False from a failure until a probe succeeds. */
  readonly up: boolean;
  /** Sends one command unless the link is down; connection failures and timeouts reject with RedisUnavailableError. */
  send(command: string, args: readonly string[]): Promise<unknown>;
  /**
   * SET key value PX ttlMs, the value sent as the bytes it is: a stored stream is bytes already, and
   * made a string only to be encoded back (a 2.6 KB value: 8-11 µs of CPU a SET as a string, 4.6-5.3
   * as bytes). Fails as `send` does.
   */
  setBytes(key: string, value: Uint8Array, ttlMs: number): Promise<unknown>;
  /** For `/readyz`: true when Redis answers a PING now; false at once while down. */
  check(): Promise<boolean>;
  close(): void;
}

/** A command waiting for the end of the turn (see `send`), then for its reply. */
interface Queued {
  readonly command: string;
  /** As the caller gave them: every caller builds a command's arguments for it alone. */
  readonly args: readonly string[];
  /** A SET whose value is bytes (`setBytes`): the key is `args[0]`. */
  readonly bytes?: { readonly value: Uint8Array; readonly ttlMs: number };
  readonly resolve: (reply: unknown) => void;
  readonly reject: (err: unknown) => void;
  /** Answered, failed or past its deadline: whichever came first settled it. */
  settled: boolean;
}

const DEFAULT_COMMAND_TIMEOUT_MS = 250;
const DEFAULT_BACKOFF_MS = 500;
const DEFAULT_MAX_BACKOFF_MS = 10_000;

/** An error reply from a Redis that answered (a script error, NOSCRIPT): the link is fine. */
const isServerReply = (err: unknown): boolean => (err as { code?: unknown } | null)?.code === "ERR_REDIS_SERVER_ERROR";

/** One line for the log, never a URL (it may hold the password). */
const describe = (err: unknown): string =>
  (err instanceof Error ? err.message : String(err))
    .split("\n")[0]!
    .replace(/(redis|rediss|valkey|valkeys):\/\/\S+/g, "[url]")
    .slice(0, 200);

export function createRedisLink(options: RedisLinkOptions): RedisLink {
  const timeoutMs = options.commandTimeoutMs ?? DEFAULT_COMMAND_TIMEOUT_MS;
  const firstBackoffMs = options.backoffMs ?? DEFAULT_BACKOFF_MS;
  const maxBackoffMs = options.maxBackoffMs ?? DEFAULT_MAX_BACKOFF_MS;
  const now = options.now ?? Date.now;
  const onChange = options.onChange ?? (() => {});
  // No offline queue and no reconnect of its own: a command on a dropped connection fails at once
  // (the link then backs off), and the probe decides when to connect again.
  // Connecting (TCP, TLS, HELLO) may take longer than a command: one deadline for it everywhere, or a
  // Redis slow to reach at start-up would count as an outage before the first request.
  const connectTimeoutMs = timeoutMs * 4;
  const open = (): RedisClient => new RedisClient(options.url, { enableOfflineQueue: false, autoReconnect: false, connectionTimeout: connectTimeoutMs });
  let client = open();
  let up = true;
  let downSince = 0;
  let backoffMs = firstBackoffMs;
  let probeTimer: ReturnType<typeof setTimeout> | undefined;
  let connecting: Promise<void> | null = null;
  let closed = false;

  const connect = (): Promise<void> => (connecting ??= withTimeout(client.connect(), connectTimeoutMs).finally(() => (connecting = null)));

  function scheduleProbe(): void {
    probeTimer = setTimeout(probe, backoffMs);
    // A pending probe never keeps the process alive.
    probeTimer.unref();
  }

  function markDown(err: unknown): void {
    if (!up || closed) return;
    up = false;
    downSince = now();
    backoffMs = firstBackoffMs;
    onChange({ state: "down", error: describe(err), retryInMs: backoffMs });
    scheduleProbe();
  }

  async function probe(): Promise<void> {
    probeTimer = undefined;
    if (closed) return;
    // A fresh connection: the old one may be half-open (a peer that vanished without a reset).
    const candidate = open();
    try {
      await withTimeout(candidate.connect(), connectTimeoutMs);
      await withTimeout(candidate.send("PING", []), timeoutMs);
    } catch {
      candidate.close();
      if (closed) return;
      backoffMs = Math.min(backoffMs * 2, maxBackoffMs);
      scheduleProbe();
      return;
    }
    if (closed) {
      candidate.close();
      return;
    }
    const old = client;
    client = candidate;
    old.close();
    up = true;
    onChange({ state: "up", downForMs: now() - downSince });
  }

  /** A failure of the link (not a reply of Redis's): the link backs off, the caller gets RedisUnavailableError. */
  const unavailable = (err: unknown): unknown => {
    if (isServerReply(err)) return err;
    markDown(err);
    return new RedisUnavailableError(describe(err));
  };

  /**
   * Commands wait for the end of the event loop's turn and go out together: the client writes each
   * command it is given on its own (a write, then a read when its answer comes), and one request
   * sends several (the limits script, the pin, the cache). Gathered, the requests served in one
   * turn share a write and a read. A throwaway server doing two GETs and a SET a request under
   * wrk at 32 connections: 26.3-27.0 µs of CPU a request sent one by one, 13.0 gathered.
   * A turn's commands share one deadline too, timed from when they go out: a timer and a race of
   * promises for each command cost more than the command's own write and read.
   */
  let queued: Queued[] = [];
  const sendQueued = (): void => {
    const batch = queued;
    queued = [];
    const target = client;
    let open = batch.length;
    const settle = (entry: Queued): boolean => {
      if (entry.settled) return false;
      entry.settled = true;
      if (--open === 0) clearTimeout(deadline);
      return true;
    };
    const deadline = setTimeout(() => {
      const late = new Error(`redis did not answer within ${timeoutMs} ms`);
      for (const entry of batch) if (settle(entry)) entry.reject(unavailable(late));
    }, timeoutMs);
    for (const entry of batch) {
      const answered = (reply: unknown): void => {
        if (settle(entry)) entry.resolve(reply);
      };
      const failed = (err: unknown): void => {
        if (settle(entry)) entry.reject(unavailable(err));
      };
      try {
        const { bytes } = entry;
        (bytes ? target.set(entry.args[0]!, bytes.value, "PX", bytes.ttlMs) : target.send(entry.command, entry.args as string[])).then(answered, failed);
      } catch (err) {
        failed(err);
      }
    }
  };
  const enqueue = (command: string, args: readonly string[], bytes?: Queued["bytes"]): Promise<unknown> =>
    new Promise((resolve, reject) => {
      if (queued.length === 0) setImmediate(sendQueued);
      queued.push(bytes ? { command, args, bytes, resolve, reject, settled: false } : { command, args, resolve, reject, settled: false });
    });

  async function connectThenSend(command: string, args: readonly string[], bytes?: Queued["bytes"]): Promise<unknown> {
    try {
      await connect();
    } catch (err) {
      throw unavailable(err);
    }
    return enqueue(command, args, bytes);
  }

  /** No async frame of its own: on a connected link a command costs one promise and its place in the turn's batch. */
  function send(command: string, args: readonly string[], bytes?: Queued["bytes"]): Promise<unknown> {
    if (!up) return Promise.reject(new RedisUnavailableError("redis is down; retrying in the background"));
    return client.connected ? enqueue(command, args, bytes) : connectThenSend(command, args, bytes);
  }

  // Connect now, so the first requests do not wait for it.
  connect().catch(markDown);

  return {
    get up() {
      return up;
    },
    send,
    setBytes: (key, value, ttlMs) => send("SET", [key], { value, ttlMs }),
    async check() {
      if (!up) return false;
      try {
        await send("PING", []);
        return true;
      } catch {
        return false;
      }
    },
    close() {
      closed = true;
      if (probeTimer !== undefined) clearTimeout(probeTimer);
      client.close();
    },
  };
}
