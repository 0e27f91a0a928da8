import { PGlite } from "@electric-sql/pglite";

/**
 * The embedded Postgres's start options: PGlite's own, with a 16 MB buffer pool instead of the
 * 128 MB of a new cluster's postgresql.conf. The pool lives in PGlite's wasm memory and stays
 * resident once touched: opening a data dir took a process to about 265 MB of RSS with 128 MB,
 * about 145 MB with 16 MB, for the same CPU per insert (pages beyond the pool are read from the
 * data dir's files, which the OS caches). Passed at each start, so the data dir's own
 * postgresql.conf is left as initdb wrote it.
 */
export const PGLITE_START_PARAMS: readonly string[] = [...PGlite.defaultStartParams, "-c", "shared_buffers=16MB"];
