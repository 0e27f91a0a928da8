import pino, { type Logger } from "pino";
import type { RequestObserver, RequestRecord } from "../canonical/request-record.ts";
import { redactSecrets } from "./redact-secrets.ts";

export interface RequestLogOptions {
  readonly level: string;
  /** `stdout`, `stderr` or a file path (appended to). */
  readonly destination: string;
  /** Log request bodies (redacted) through `logBody`; off unless asked for. */
  readonly logBodies: boolean;
  /** The longest a line waits in memory before it is written (default 1000 ms). */
  readonly flushIntervalMs?: number;
}

export interface RequestLog {
  /** One JSON line per finished request. */
  readonly observe: RequestObserver;
  /** With body logging on: the request body, keys and job tokens redacted. A no-op otherwise. */
  logBody(requestId: string, body: unknown): void;
  /** Operational messages (reload, shutdown) in the same stream. */
  readonly logger: Logger;
  /** Writes out what is buffered; called last on shutdown. */
  flush(): Promise<void>;
}

function destinationFd(destination: string): number | string {
  if (destination === "stdout") return 1;
  if (destination === "stderr") return 2;
  return destination;
}

const tenth = (ms: number): number => Math.round(ms * 10) / 10;

type LineLevel = "info" | "warn";

/**
 * A request's whole log line, in the order pino writes it: `level` and `time` first (what the
 * logger's level formatter and `isoTime` give), the record's fields, `msg` last. The record holds
 * no key, prompt or body, so neither can the line. One object and one native `JSON.stringify`:
 * pino's generic path walks the keys, escapes each key and value on its own and concatenates, for
 * the same text (undefined fields are left out and non-finite numbers become null either way).
 */
function lineOf(record: RequestRecord, level: LineLevel, time: string): string {
  const usage = record.usage;
  return `${JSON.stringify({
    level,
    time,
    requestId: record.requestId,
    accountId: record.accountId,
    endpoint: record.endpoint,
    stream: record.stream,
    tier: record.tier,
    model: record.model,
    effort: record.effort,
    source: record.source,
    taskClass: record.taskClass,
    status: record.status,
    errorType: record.errorType,
    streamError: record.streamError,
    clientAborted: record.clientAborted || undefined,
    latencyMs: tenth(record.latencyMs),
    ttfbMs: record.ttfbMs === undefined ? undefined : tenth(record.ttfbMs),
    tokens: usage
      ? {
          input: usage.inputTokens,
          output: usage.outputTokens,
          cacheRead: usage.cacheReadTokens,
          cacheWrite: usage.cacheWriteTokens,
          reasoning: usage.reasoningTokens,
          estimated: usage.estimated === true || undefined,
        }
      : undefined,
    costUsd: record.costUsd,
    cacheHit: record.cacheHit,
    attempts: record.attempts,
    failovers: Math.max(0, record.attempts - 1),
    warnings: record.warnings.length > 0 ? record.warnings : undefined,
    msg: "request",
  })}\n`;
}

/**
 * Request lines are handed to the destination in chunks of at least this many characters (= its
 * minLength). Each chunk is one asynchronous write, so fewer, larger chunks cost less per line: a
 * throwaway script writing 200,000 lines to a pipe took 3.1–3.3 µs of CPU per line in 4 KiB chunks
 * and 1.4–1.5 µs in 16 KiB chunks (about 40 lines, or one second on a quiet instance, held back).
 */
const HAND_OVER_CHARS = 16_384;
/** sonic-boom's largest single write; it must exceed the minimum length. */
const MAX_WRITE_BYTES = 65_536;
const FLUSH_INTERVAL_MS = 1_000;

/**
 * The request log on pino with an asynchronous sonic-boom destination: a request only formats its
 * line into a buffer; writes happen later in batches of at least 16 KiB, off the request's path.
 * Request lines gather in a string of our own first and reach the destination 16 KiB at a time:
 * sonic-boom measures the UTF-8 length of its whole pending buffer on every `write`, which costs
 * more than the line itself when called per line. The destination held lines below its minimum
 * length anyway, so when they are written does not change; pino's own lines take the gathered ones
 * with them (the `streamWrite` hook), so the order of lines does not change either. A line waits
 * at most `flushIntervalMs`: on a quiet instance 16 KiB can take minutes to gather, and `docker logs`
 * would show nothing meanwhile (and a crash would lose it all).
 */
export function createRequestLog(options: RequestLogOptions): RequestLog {
  const dest = destinationFd(options.destination);
  const destination = pino.destination({ dest, sync: false, minLength: HAND_OVER_CHARS, maxWrite: MAX_WRITE_BYTES, mkdir: true });
  let failed = false;
  // A file opens asynchronously; a flush before that would find nothing to write yet.
  const opened =
    typeof dest === "number"
      ? Promise.resolve()
      : new Promise<void>((resolve) => {
          destination.once("ready", () => resolve());
          destination.once("error", () => resolve());
        });
  // An unwritable destination must not take the process down: reported once, lines dropped.
  destination.on("error", (error: Error) => {
    if (!failed) console.error(`routelane: request log ${options.destination}: ${error.message}`);
    failed = true;
  });
  let ready = typeof dest === "number";
  void opened.then(() => (ready = true));
  let gathered = "";
  const handOver = (): void => {
    if (gathered === "") return;
    const chunk = gathered;
    gathered = "";
    destination.write(chunk);
  };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const writeOut = (): void => {
    timer = undefined;
    handOver();
    if (!ready || failed) return;
    try {
      destination.flush();
    } catch {
      // Destroyed at shutdown: nothing left to write to.
    }
  };
  /** Called whenever a line is held: the first one held starts the clock. */
  const writeSoon = (): void => {
    if (timer) return;
    timer = setTimeout(writeOut, options.flushIntervalMs ?? FLUSH_INTERVAL_MS);
    timer.unref();
  };
  const logger = pino(
    {
      level: options.level,
      hooks: {
        streamWrite(line) {
          writeSoon();
          if (gathered === "") return line;
          const chunk = gathered + line;
          gathered = "";
          return chunk;
        },
      },
      base: undefined,
      timestamp: pino.stdTimeFunctions.isoTime,
      formatters: { level: (label) => ({ level: label }) },
    },
    destination,
  );
  return {
    logger,
    // Into pino's own destination after pino's level check: the same line, in the same stream as
    // the logger's other lines, without pino's per-key serialisation (see lineOf).
    observe(record) {
      const level: LineLevel = record.status >= 500 ? "warn" : "info";
      if (!logger.isLevelEnabled(level)) return;
      gathered += lineOf(record, level, new Date().toISOString());
      if (gathered.length >= HAND_OVER_CHARS) handOver();
      writeSoon();
    },
    logBody(requestId, body) {
      if (!options.logBodies || !logger.isLevelEnabled("debug")) return;
      logger.debug({ requestId, body: redactSecrets(body) }, "request body");
    },
    async flush() {
      clearTimeout(timer);
      timer = undefined;
      handOver();
      await opened;
      if (failed) return;
      // With a minimum length set, flush's callback runs once every buffered line is written.
      await new Promise<void>((resolve) => destination.flush(() => resolve()));
    },
  };
}
