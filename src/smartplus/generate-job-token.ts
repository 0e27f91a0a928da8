import { encodeBase62 } from "../accounts/generate-api-key.ts";

export const JOB_TOKEN_PREFIX = "rlj_";

/** A job token and the hash the database keeps; the token itself is only ever put in a command. */
export interface JobToken {
  readonly token: string;
  readonly hash: string;
}

/** SHA-256 hex of a presented token. */
export function hashJobToken(token: string): string {
  return Bun.SHA256.hash(token, "hex");
}

/** `rlj_` + base62 of 32 random bytes. */
export function generateJobToken(): JobToken {
  const token = JOB_TOKEN_PREFIX + encodeBase62(crypto.getRandomValues(new Uint8Array(32)), 43);
  return { token, hash: hashJobToken(token) };
}

/** `job_` + base62 of 16 random bytes: unguessable, shell-safe and URL-safe. */
export function generateJobId(): string {
  return "job_" + encodeBase62(crypto.getRandomValues(new Uint8Array(16)), 22);
}
