import { existsSync } from "node:fs";
import { join } from "node:path";
import { createDataDirInProcess } from "./create-data-dir-in-process.ts";
import type { PgliteReply, PgliteRequest, SentError } from "./messages.ts";
import { MEMORY_DATA_DIR } from "./memory-data-dir.ts";

export { MEMORY_DATA_DIR };

/** A request before it is numbered (Omit over each member of the union). */
type Unnumbered<R> = R extends PgliteRequest ? Omit<R, "id"> : never;
type Sent = Unnumbered<PgliteRequest>;

export interface PgliteQueryOptions {
  readonly rowMode?: "array" | "object";
  /** Only parsers that hand the text back as it came (drizzle's are all such) are supported. */
  readonly parsers?: Readonly<Record<number, unknown>>;
  /** `copy … from '/dev/blob'`. */
  readonly blob?: Blob;
}

export interface PgliteResults<T> {
  readonly rows: T[];
  readonly fields: { readonly name: string; readonly dataTypeID: number }[];
  readonly affectedRows?: number;
}

/** What drizzle's PGlite driver and the usage store call on a client or a transaction. */
export interface PgliteSession {
  query<T>(sql: string, params?: readonly unknown[], options?: PgliteQueryOptions): Promise<PgliteResults<T>>;
  exec(sql: string): Promise<PgliteResults<unknown>[]>;
}

export interface PgliteThread extends PgliteSession {
  /** Commits when `fn` resolves, rolls back when it throws; other queries wait, as on PGlite itself. */
  transaction<T>(fn: (tx: PgliteSession) => Promise<T>): Promise<T>;
  dumpDataDir(compression?: "none" | "gzip" | "auto"): Promise<Blob>;
  close(): Promise<void>;
}

/** Starts the thread's worker from its script's URL; a caller may give its own (to watch or stop the worker). */
export type StartWorker = (url: string) => Worker;

const startWorker: StartWorker = (url) => new Worker(url);

function receivedError(sent: SentError): Error {
  const error = Object.assign(new Error(sent.message), sent.fields);
  error.name = sent.name;
  return error;
}

interface Connection {
  call(request: Sent, transfer?: ArrayBuffer[]): Promise<unknown>;
  terminate(): void;
  /** Why the thread is gone (it failed or stopped); undefined while it runs. */
  readonly gone: Error | undefined;
}

/** A PGlite thread with its database open; calls are numbered and matched to their replies. */
async function connect(location: string, initialData: Blob | undefined, start: StartWorker): Promise<Connection> {
  const worker = start(new URL("./pglite-worker.ts", import.meta.url).href);
  worker.unref();
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let gone: Error | undefined;

  const failAll = (error: Error): void => {
    gone ??= error;
    for (const call of pending.values()) call.reject(error);
    pending.clear();
    worker.unref();
  };
  worker.addEventListener("message", (event: MessageEvent<PgliteReply>) => {
    const reply = event.data;
    const call = pending.get(reply.id);
    if (!call) return;
    pending.delete(reply.id);
    if (pending.size === 0) worker.unref();
    if (reply.ok) call.resolve(reply.value);
    else call.reject(receivedError(reply.error));
  });
  worker.addEventListener("error", (event: ErrorEvent) => failAll(new Error(`the PGlite thread failed: ${event.message}`)));
  worker.addEventListener("close", () => failAll(new Error("the PGlite thread has stopped")));

  function call(request: Sent, transfer: ArrayBuffer[] = []): Promise<unknown> {
    if (gone) return Promise.reject(gone);
    const id = nextId++;
    return new Promise((resolve, reject) => {
      if (pending.size === 0) worker.ref();
      pending.set(id, { resolve, reject });
      worker.postMessage({ ...request, id }, transfer);
    });
  }

  const opening = initialData ? await initialData.arrayBuffer() : undefined;
  try {
    await call({ op: "open", location, ...(opening ? { initialData: opening } : {}) }, opening ? [opening] : []);
  } catch (error) {
    worker.terminate();
    throw error;
  }
  return {
    call,
    terminate: () => worker.terminate(),
    get gone() {
      return gone;
    },
  };
}

/** After a failed reopen, calls fail with its error for this long before the next attempt. */
const REOPEN_RETRY_MS = 1_000;

/**
 * PGlite on a thread of its own (`pglite-worker.ts`), behind the part of PGlite's interface that
 * drizzle uses. A usage batch holds PGlite for milliseconds of CPU; on the serving thread that
 * stalled every request in flight, and the database's work took about 15 % of the thread's time
 * under the bench's load. Each call is one message each way; the thread keeps the process alive only while
 * a call is waiting.
 *
 * `initialData` (a `dumpDataDir` tarball) is where a new database starts, in memory or in a new
 * data directory, instead of initdb: initdb runs a second PGlite and its own wasm beside the first,
 * and took a process to about 1.1 GB of RSS for a moment, where loading a tarball took it to about
 * 0.5 GB (test/ops/executable.test.ts). An existing data directory is opened as it is.
 * A new data directory is created by a thread of its own that is then stopped: the PGlite that
 * created it keeps what that took for its whole life (after initdb a process about 0.2 GB larger,
 * measured by test/db/pglite-data-dir.test.ts), and a thread's end frees all of it. Without
 * initial data (from source) initdb runs in a child process instead (`createDataDirInProcess`),
 * whose peak is not this process's.
 */
export async function openPgliteThread(location: string, initialData?: Blob, start: StartWorker = startWorker): Promise<PgliteThread> {
  if (location !== MEMORY_DATA_DIR && !existsSync(join(location, "PG_VERSION"))) {
    if (initialData) {
      const creator = await connect(location, initialData, start);
      await creator.call({ op: "close" }).finally(() => creator.terminate());
    } else {
      await createDataDirInProcess(location);
    }
  }
  let connection = await connect(location, location === MEMORY_DATA_DIR ? initialData : undefined, start);
  let reopening: Promise<Connection> | undefined;
  let failedReopen: { readonly at: number; readonly error: unknown } | undefined;
  let closing: Promise<void> | undefined;

  /**
   * The running thread. One that died outside a call (a crash in the thread, say) is replaced by a
   * new one on the same data directory, which recovers it as Postgres does after a crash; the
   * calls that were waiting on the old thread have failed with it. An in-memory database died
   * with its thread, so it is not reopened: its calls keep failing with the thread's error.
   */
  function running(): Connection | Promise<Connection> {
    if (!connection.gone || closing || location === MEMORY_DATA_DIR) return connection;
    if (failedReopen && Date.now() - failedReopen.at < REOPEN_RETRY_MS) return Promise.reject(failedReopen.error);
    const lost = connection.gone.message;
    // PGlite would create an empty database where the directory has gone: that is not a reopen.
    const reopen = existsSync(join(location, "PG_VERSION"))
      ? connect(location, undefined, start)
      : Promise.reject(new Error(`the PGlite thread stopped and its data directory ${location} has gone`));
    reopening ??= reopen.then(
      (next) => {
        if (closing) {
          next.call({ op: "close" }).then(next.terminate, next.terminate);
          throw new Error("the PGlite thread has been closed");
        }
        connection = next;
        failedReopen = undefined;
        reopening = undefined;
        console.warn(JSON.stringify({ level: "warn", msg: "PGlite thread stopped; reopened the database", reason: lost }));
        return next;
      },
      (error: unknown) => {
        failedReopen = { at: Date.now(), error };
        reopening = undefined;
        console.error(JSON.stringify({ level: "error", msg: "PGlite thread stopped; reopening the database failed", reason: lost, error: String(error) }));
        throw error;
      },
    );
    return reopening;
  }

  const anyThread: Pick<Connection, "call"> = {
    async call(request, transfer) {
      return (await running()).call(request, transfer);
    },
  };

  /**
   * Queries outside a transaction go to whichever thread runs; a transaction's go to the thread it
   * began on, and fail once that thread has gone (nothing of it was committed).
   */
  function session(on: Pick<Connection, "call">, tx: number | undefined): PgliteSession {
    return {
      async query<T>(sql: string, params: readonly unknown[] = [], options: PgliteQueryOptions = {}) {
        const blob = options.blob ? await options.blob.arrayBuffer() : undefined;
        const request: Sent = {
          op: "query",
          sql,
          params,
          ...(tx !== undefined ? { tx } : {}),
          ...(options.rowMode ? { rowMode: options.rowMode } : {}),
          ...(options.parsers ? { rawTypes: Object.keys(options.parsers).map(Number) } : {}),
          ...(blob ? { blob } : {}),
        };
        return (await on.call(request, blob ? [blob] : [])) as PgliteResults<T>;
      },
      async exec(sql: string) {
        return (await on.call({ op: "exec", sql, ...(tx !== undefined ? { tx } : {}) })) as PgliteResults<unknown>[];
      },
    };
  }

  return {
    ...session(anyThread, undefined),
    async transaction<T>(fn: (tx: PgliteSession) => Promise<T>): Promise<T> {
      const thread = await running();
      const tx = (await thread.call({ op: "begin" })) as number;
      let result: T;
      try {
        result = await fn(session(thread, tx));
      } catch (error) {
        await thread.call({ op: "end", tx, commit: false }).catch(() => {});
        throw error;
      }
      await thread.call({ op: "end", tx, commit: true });
      return result;
    },
    async dumpDataDir(compression = "none") {
      return new Blob([(await anyThread.call({ op: "dump", compression })) as ArrayBuffer]);
    },
    close() {
      closing ??= connection.call({ op: "close" }).then(
        () => connection.terminate(),
        () => connection.terminate(),
      );
      return closing;
    },
  };
}
