/** One Redis command as the link sends it: connection failures and timeouts reject with RedisUnavailableError. */
export type RedisSend = (command: string, args: readonly string[]) => Promise<unknown>;

export type ScriptRunner = (keys: readonly string[], args: readonly (string | number)[]) => Promise<unknown>;

const isNoScript = (err: unknown) => err instanceof Error && err.message.includes("NOSCRIPT");

/**
 * Runs a Lua script by its SHA1 (EVALSHA), sending the source only when the server does not know it
 * yet (first use, restart, SCRIPT FLUSH). Deadlines and the outage handling are the link's.
 */
export function createScriptRunner(send: RedisSend, source: string): ScriptRunner {
  const sha = new Bun.CryptoHasher("sha1").update(source).digest("hex");
  return async (keys, args) => {
    // One array, the SHA first (the source takes its place on a retry): not four a call.
    const command = [sha, String(keys.length)];
    for (const key of keys) command.push(key);
    for (const arg of args) command.push(String(arg));
    try {
      return await send("EVALSHA", command);
    } catch (err) {
      if (!isNoScript(err)) throw err;
      command[0] = source;
      return send("EVAL", command);
    }
  };
}
