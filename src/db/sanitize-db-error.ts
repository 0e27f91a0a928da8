import { DrizzleQueryError } from "drizzle-orm/errors";

/**
 * Drizzle's query errors quote the SQL and its parameters, which for key lookups include a key
 * hash. What we log or rethrow keeps only the driver's own message (never parameters).
 */
export function describeDbError(err: unknown): string {
  const inner = driverErrorOf(err);
  if (inner instanceof Error) {
    const code = codeOf(inner);
    return code !== undefined ? `${inner.message} (${code})` : inner.message;
  }
  return String(inner);
}

/** The driver's own error inside Drizzle's wrapper. */
function driverErrorOf(err: unknown): unknown {
  return err instanceof DrizzleQueryError ? err.cause : err;
}

/** The driver's or the server's code of a failure, when it gave one. */
function codeOf(err: unknown): string | undefined {
  const inner = driverErrorOf(err);
  const code = inner instanceof Error ? (inner as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

export class DatabaseFailure extends Error {
  override readonly name = "DatabaseFailure";
  /** The driver's or the server's code (`CONNECTION_CLOSED`, a SQLSTATE), when it gave one. */
  readonly code: string | undefined;

  constructor(message: string, code?: string) {
    super(message);
    this.code = code;
  }
}

/** Awaits a query; a failure becomes a DatabaseFailure that carries no query text or parameters. */
export async function withoutQueryText<T>(query: PromiseLike<T>): Promise<T> {
  try {
    return await query;
  } catch (err) {
    throw new DatabaseFailure(`database query failed: ${describeDbError(err)}`, codeOf(err));
  }
}
