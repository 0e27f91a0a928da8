const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

export const KEY_PREFIX = "rl_";
/** 32 random bytes need 43 base62 digits (62^43 > 2^256 > 62^42). */
export const KEY_BODY_LENGTH = 43;
/** How much of the key is kept for display: `rl_` + 5 characters. */
export const DISPLAY_PREFIX_LENGTH = 8;

export interface GeneratedKey {
  /** The secret; shown once, never stored. */
  readonly key: string;
  /** SHA-256 hex of the whole key: what the database holds. */
  readonly hash: string;
  readonly prefix: string;
}

/** Fixed-width base62 of an unsigned big-endian byte string. */
export function encodeBase62(bytes: Uint8Array, width: number): string {
  let value = 0n;
  for (const byte of bytes) value = (value << 8n) | BigInt(byte);
  let out = "";
  while (value > 0n) {
    out = BASE62[Number(value % 62n)] + out;
    value /= 62n;
  }
  if (out.length > width) throw new RangeError(`value needs ${out.length} base62 digits, more than ${width}`);
  return out.padStart(width, "0");
}

/** SHA-256 hex of a presented key. Any key whose hash matches an active row is accepted, whatever its prefix. */
export function hashApiKey(key: string): string {
  return Bun.SHA256.hash(key, "hex");
}

function displayPrefix(key: string): string {
  return key.slice(0, DISPLAY_PREFIX_LENGTH);
}

/** `rl_` + base62 of 32 bytes from crypto.getRandomValues. */
export function generateApiKey(): GeneratedKey {
  const bytes = crypto.getRandomValues(new Uint8Array(32));
  const key = KEY_PREFIX + encodeBase62(bytes, KEY_BODY_LENGTH);
  return { key, hash: hashApiKey(key), prefix: displayPrefix(key) };
}

/** `acct_…`, `key_…`: a readable prefix and 16 uniformly random base62 characters (~95 bits). */
export function generateId(prefix: string, length = 16): string {
  let out = prefix;
  while (out.length < prefix.length + length) {
    for (const byte of crypto.getRandomValues(new Uint8Array(length * 2))) {
      // 248 = 4 × 62: rejecting the rest keeps every character equally likely.
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === prefix.length + length) break;
    }
  }
  return out;
}
