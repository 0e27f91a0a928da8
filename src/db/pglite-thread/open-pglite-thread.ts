import { existsSync } from "node:fs";
import { join } from "node:path";
import type { PgliteReply, PgliteRequest, SentError } from "./messages.ts";

/** PGlite's location for a database kept in memory only. */
export const MEMORY_DATA_DIR = "memory://";

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

function receivedError(sent: SentError): Error {
  const error = Object.assign(new Error(sent.message), sent.fields);
  error.name = sent.name;
  return error;
}

interface Connection {
  call(request: Sent, transfer?: ArrayBuffer[]): Promise<unknown>;
  terminate(): void;
}

/** A PGlite thread with its database open; calls are numbered and matched to their replies. */
async function connect(location: string, initialData: Blob | undefined): Promise<Connection> {
  const worker = new Worker(new URL("./pglite-worker.ts", import.meta.url).href);
  worker.unref();
  const pending = new Map<number, { resolve: (value: unknown) => void; reject: (error: Error) => void }>();
  let nextId = 1;
  let gone: Error | undefined;

  const failAll = (error: Error): void => {
    gone = error;
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
  return { call, terminate: () => worker.terminate() };
}

/**
 * PGlite on a thread of its own (`pglite-worker.ts`), behind the part of PGlite's interface that
 * drizzle uses. A usage batch holds PGlite for milliseconds of CPU; on the serving thread that
 * stalled every request in flight, and the database's work took about 15 % of the thread's time
 * under the bench's load. Each call is one message each way; the thread keeps the process alive only while
 * a call is waiting.
 *
 * `initialData` (a `dumpDataDir` tarball) is where an in-memory database starts, instead of initdb.
 * A new data directory is created by a thread of its own that is then stopped: the PGlite that
 * ran initdb keeps initdb's memory for its whole life (a process about 0.2 GB larger, measured by
 * test/db/pglite-data-dir.test.ts), and a thread's end frees all of it.
 */
export async function openPgliteThread(location: string, initialData?: Blob): Promise<PgliteThread> {
  if (location !== MEMORY_DATA_DIR && !existsSync(join(location, "PG_VERSION"))) {
    const creator = await connect(location, undefined);
    await creator.call({ op: "close" }).finally(() => creator.terminate());
  }
  const { call, terminate } = await connect(location, location === MEMORY_DATA_DIR ? initialData : undefined);

  function session(tx: number | undefined): PgliteSession {
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
        return (await call(request, blob ? [blob] : [])) as PgliteResults<T>;
      },
      async exec(sql: string) {
        return (await call({ op: "exec", sql, ...(tx !== undefined ? { tx } : {}) })) as PgliteResults<unknown>[];
      },
    };
  }

  let closing: Promise<void> | undefined;
  return {
    ...session(undefined),
    async transaction<T>(fn: (tx: PgliteSession) => Promise<T>): Promise<T> {
      const tx = (await call({ op: "begin" })) as number;
      let result: T;
      try {
        result = await fn(session(tx));
      } catch (error) {
        await call({ op: "end", tx, commit: false }).catch(() => {});
        throw error;
      }
      await call({ op: "end", tx, commit: true });
      return result;
    },
    async dumpDataDir(compression = "none") {
      return new Blob([(await call({ op: "dump", compression })) as ArrayBuffer]);
    },
    close() {
      closing ??= call({ op: "close" }).then(terminate, terminate);
      return closing;
    },
  };
}
