/**
 * The PGlite thread: the embedded database runs here, so its work (a usage batch takes milliseconds
 * of CPU) is off the thread that serves requests. The main thread sends SQL; see `openPgliteThread`.
 */
import { PGlite, type ParserOptions, type Results, type Transaction } from "@electric-sql/pglite";
import type { PgliteReply, PgliteRequest, SentError } from "./messages.ts";
import { MEMORY_DATA_DIR } from "./memory-data-dir.ts";
import { PGLITE_START_PARAMS } from "./pglite-start-params.ts";

declare const self: Worker;

/**
 * Given initial data (a `dumpDataDir` tarball), a new database starts from it, in memory or in a
 * new data directory, instead of running initdb.
 */
function openClient(location: string, initialData: ArrayBuffer | undefined): Promise<PGlite> {
  const startParams = [...PGLITE_START_PARAMS];
  if (!initialData) return PGlite.create({ dataDir: location, startParams });
  const loadDataDir = new Blob([initialData]);
  return PGlite.create(location === MEMORY_DATA_DIR ? { loadDataDir, startParams } : { dataDir: location, loadDataDir, startParams });
}

let client: PGlite | undefined;
/** Open transactions: the handle their queries run on and how the main thread's verdict reaches them. */
const transactions = new Map<number, { readonly tx: Transaction; readonly decide: (commit: boolean) => void }>();
/** Each begun transaction's end: committed, rolled back, or the commit's error. */
const endings = new Map<number, Promise<void>>();
let nextTx = 1;

const identity = (value: string): string => value;
const parserSets = new Map<string, ParserOptions>();
function parsersFor(types: readonly number[]): ParserOptions {
  const key = types.join(",");
  let parsers = parserSets.get(key);
  if (!parsers) parserSets.set(key, (parsers = Object.fromEntries(types.map((type) => [type, identity]))));
  return parsers;
}

function open(): PGlite {
  if (!client) throw new Error("the PGlite thread has no open database");
  return client;
}

function target(tx: number | undefined): PGlite | Transaction {
  if (tx === undefined) return open();
  const entry = transactions.get(tx);
  if (!entry) throw new Error(`transaction ${tx} has ended`);
  return entry.tx;
}

/** Thrown inside PGlite's transaction callback so that it rolls back; never leaves this file. */
const ROLLBACK = Symbol("rollback");

/** Starts a transaction that stays open until the main thread ends it; resolves with its number once begun. */
function begin(): Promise<number> {
  const number = nextTx++;
  return new Promise<number>((started, failed) => {
    let decide!: (commit: boolean) => void;
    const decided = new Promise<boolean>((resolve) => (decide = resolve));
    const settled = open()
      .transaction(async (tx) => {
        transactions.set(number, { tx, decide });
        started(number);
        if (!(await decided)) throw ROLLBACK;
      })
      .then(
        () => {},
        (error: unknown) => {
          if (error !== ROLLBACK) throw error;
        },
      )
      .finally(() => {
        transactions.delete(number);
        endings.delete(number);
      });
    endings.set(number, settled);
    // A transaction that could not begin fails `begin`; one that began reports through `end`.
    settled.catch(failed);
  });
}

async function end(tx: number, commit: boolean): Promise<void> {
  const entry = transactions.get(tx);
  const ending = endings.get(tx);
  if (!entry || !ending) throw new Error(`transaction ${tx} has ended`);
  entry.decide(commit);
  await ending;
}

async function run(request: PgliteRequest): Promise<{ value: unknown; transfer?: ArrayBuffer[] }> {
  switch (request.op) {
    case "open":
      client = await openClient(request.location, request.initialData);
      return { value: null };
    case "query": {
      const options = {
        ...(request.rowMode ? { rowMode: request.rowMode } : {}),
        ...(request.rawTypes?.length ? { parsers: parsersFor(request.rawTypes) } : {}),
        ...(request.blob ? { blob: new Blob([request.blob]) } : {}),
      };
      const result: Results = await target(request.tx).query(request.sql, [...request.params], options);
      // A blob PGlite returns (`copy … to '/dev/blob'`) does not cross; nothing here asks for one.
      return { value: { rows: result.rows, fields: result.fields, affectedRows: result.affectedRows } };
    }
    case "exec": {
      const results = await target(request.tx).exec(request.sql);
      return { value: results.map((r) => ({ rows: r.rows, fields: r.fields, affectedRows: r.affectedRows })) };
    }
    case "begin":
      return { value: await begin() };
    case "end":
      await end(request.tx, request.commit);
      return { value: null };
    case "dump": {
      const bytes = await (await open().dumpDataDir(request.compression)).arrayBuffer();
      return { value: bytes, transfer: [bytes] };
    }
    case "close":
      await client?.close();
      client = undefined;
      return { value: null };
  }
}

function sendError(error: unknown): SentError {
  if (!(error instanceof Error)) return { name: "Error", message: String(error), fields: {} };
  const fields: Record<string, string | number | boolean | null> = {};
  for (const [name, value] of Object.entries(error)) {
    if (value === null || typeof value === "string" || typeof value === "number" || typeof value === "boolean") fields[name] = value;
  }
  return { name: error.name, message: error.message, fields };
}

self.onmessage = (event: MessageEvent<PgliteRequest>) => {
  const request = event.data;
  run(request).then(
    ({ value, transfer }) => self.postMessage({ id: request.id, ok: true, value } satisfies PgliteReply, transfer ?? []),
    (error: unknown) => self.postMessage({ id: request.id, ok: false, error: sendError(error) } satisfies PgliteReply),
  );
};
