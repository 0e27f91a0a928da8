import { DatabaseFailure } from "./sanitize-db-error.ts";
import { withTimeout } from "../canonical/with-timeout.ts";
import { POSTGRES_POOL_SIZE } from "./client.ts";

/**
 * A connection the server has dropped: postgres.js's code for a query written to a pooled
 * connection already closed, the socket's own when the close came while the query was on the
 * wire, and the server's for a connection it was closing as the query arrived (`admin_shutdown`,
 * `crash_shutdown`). A server that cannot be reached at all refuses the new connection instead
 * (ECONNREFUSED), which is not among these.
 */
const DROPPED: ReadonlySet<string> = new Set(["CONNECTION_CLOSED", "ECONNRESET", "EPIPE", "57P01", "57P02"]);

/**
 * How long one attempt may take. A query sent on a connection as the server dropped it is, now
 * and then, never answered nor failed by the driver (about one run in ten of the restart test);
 * without a deadline the request would wait for it forever.
 */
const ATTEMPT_DEADLINE_MS = 2_000;

function isDropped(error: unknown): boolean {
  return error instanceof DatabaseFailure && error.code !== undefined && DROPPED.has(error.code);
}

/**
 * Runs a read again when it failed for the connection, not for the query. After a server restart
 * or failover every pooled connection is dead, and each fails its next query at once (it never
 * reaches the server) before the driver opens a new one: so a read meeting dropped connections is
 * tried once more than the pool holds. Any other failure, an attempt past its deadline included,
 * is tried once more (the driver reconnects for the next query) and then reaches the caller.
 */
export async function retryDroppedConnection<T>(read: () => Promise<T>, deadlineMs = ATTEMPT_DEADLINE_MS): Promise<T> {
  let dropped = 0;
  let other = 0;
  for (;;) {
    try {
      return await withTimeout(read(), deadlineMs, "the database");
    } catch (error) {
      if (isDropped(error) ? ++dropped > POSTGRES_POOL_SIZE : ++other > 1) throw error;
    }
  }
}
