import { DatabaseFailure } from "../accounts/sanitize-db-error.ts";
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
 * Runs a read again when it failed for the connection, not for the query. After a server restart
 * or failover every pooled connection is dead, and each fails its next query at once (it never
 * reaches the server) before the driver opens a new one: so a read meeting dropped connections is
 * tried once more than the pool holds. Any other failure is tried once more (the driver reconnects
 * for the next query) and then reaches the caller.
 */
export async function retryDroppedConnection<T>(read: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await read();
    } catch (error) {
      const dropped = error instanceof DatabaseFailure && error.code !== undefined && DROPPED.has(error.code);
      if (attempt >= (dropped ? POSTGRES_POOL_SIZE + 1 : 2)) throw error;
    }
  }
}
