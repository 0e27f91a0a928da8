import type { PGlite } from "@electric-sql/pglite";
import type { PgliteThread } from "./open-pglite-thread.ts";

/**
 * drizzle's PGlite driver and migrator type their client as PGlite but call only `query` and
 * `transaction` (and, inside one, `query`), which the thread has with the same shapes.
 */
export const asPglite = (thread: PgliteThread): PGlite => thread as unknown as PGlite;
