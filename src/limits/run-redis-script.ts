import type { RedisClient } from "bun";

/** A Redis command that did not answer in time or could not be sent: the caller fails open. */
export class RedisUnavailableError extends Error {
  override readonly name = "RedisUnavailableError";
}

export type ScriptRunner = (keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

function withTimeout<T>(promise: Promise<T>, timeoutMs: number): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new RedisUnavailableError(`redis did not answer within ${timeoutMs} ms`)), timeoutMs);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

const isNoScript = (err: unknown) => err instanceof Error && err.message.includes("NOSCRIPT");

/**
 * Runs a Lua script by its SHA1 (EVALSHA), sending the source only when the server does not know it
 * yet (first use, restart, SCRIPT FLUSH). Connection failures and timeouts become RedisUnavailableError.
 */
export function createScriptRunner(client: RedisClient, source: string, timeoutMs: number): ScriptRunner {
  const sha = new Bun.CryptoHasher("sha1").update(source).digest("hex");
  return async (keys, args) => {
    const argv = [String(keys.length), ...keys, ...args.map(String)];
    try {
      return await withTimeout(
        client.send("EVALSHA", [sha, ...argv]).catch((err: unknown) => {
          if (isNoScript(err)) return client.send("EVAL", [source, ...argv]);
          throw err;
        }),
        timeoutMs,
      );
    } catch (err) {
      if (err instanceof RedisUnavailableError) throw err;
      const code = (err as { code?: unknown }).code;
      // A script error is a bug and should surface; anything about the connection means "unreachable".
      if (code === "ERR_REDIS_SERVER_ERROR") throw err;
      throw new RedisUnavailableError(err instanceof Error ? err.message : String(err));
    }
  };
}
