/** What the main thread asks of the PGlite thread. Every request carries an id its reply repeats. */
export type PgliteRequest =
  /** `initialData`: a `dumpDataDir` tarball a new database (in memory or in a new data directory) starts from. */
  | { readonly id: number; readonly op: "open"; readonly location: string; readonly initialData?: ArrayBuffer }
  | {
      readonly id: number;
      readonly op: "query";
      readonly tx?: number;
      readonly sql: string;
      readonly params: readonly unknown[];
      readonly rowMode?: "array" | "object";
      /** Type OIDs whose values come back as the text Postgres sent (drizzle's parsers, all the identity). */
      readonly rawTypes?: readonly number[];
      /** `copy … from '/dev/blob'`: the blob's bytes. */
      readonly blob?: ArrayBuffer;
    }
  | { readonly id: number; readonly op: "exec"; readonly tx?: number; readonly sql: string }
  /** Starts a transaction; the reply is its number, for the queries that belong to it. */
  | { readonly id: number; readonly op: "begin" }
  | { readonly id: number; readonly op: "end"; readonly tx: number; readonly commit: boolean }
  | { readonly id: number; readonly op: "dump"; readonly compression: "none" | "gzip" | "auto" }
  | { readonly id: number; readonly op: "close" };

/** An error as it crosses the thread: its message and every plain field (Postgres's `code`, `detail`, …). */
export interface SentError {
  readonly name: string;
  readonly message: string;
  readonly fields: Record<string, string | number | boolean | null>;
}

export type PgliteReply = { readonly id: number; readonly ok: true; readonly value: unknown } | { readonly id: number; readonly ok: false; readonly error: SentError };
