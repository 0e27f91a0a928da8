import { DrizzleQueryError } from "drizzle-orm/errors";

/**
 * Drizzle's query errors quote the SQL and its parameters, which for key lookups include a key
 * hash. What we log or rethrow keeps only the driver's own message (never parameters).
 */
export function describeDbError(err: unknown): string {
  const inner = err instanceof DrizzleQueryError ? err.cause : err;
  if (inner instanceof Error) {
    const code = (inner as { code?: unknown }).code;
    return typeof code === "string" ? `${inner.message} (${code})` : inner.message;
  }
  return String(inner);
}

export class DatabaseFailure extends Error {
  override readonly name = "DatabaseFailure";
}

/** Awaits a query; a failure becomes a DatabaseFailure that carries no query text or parameters. */
export async function withoutQueryText<T>(query: PromiseLike<T>): Promise<T> {
  try {
    return await query;
  } catch (err) {
    throw new DatabaseFailure(`database query failed: ${describeDbError(err)}`);
  }
}
