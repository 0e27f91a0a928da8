const ALPHABET = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
const LENGTH = 16;
const POOL_SIZE = LENGTH * 256;
let pool = new Uint8Array(POOL_SIZE);
let offset = POOL_SIZE;

/**
 * A 16-character request id (base62, ~95 bits). Random bytes are drawn in batches so a request
 * costs no system call. 248 = 4 × 62 keeps the character choice unbiased.
 */
export function newRequestId(): string {
  let id = "";
  while (id.length < LENGTH) {
    if (offset >= POOL_SIZE) {
      pool = crypto.getRandomValues(new Uint8Array(POOL_SIZE));
      offset = 0;
    }
    const byte = pool[offset++]!;
    if (byte < 248) id += ALPHABET[byte % 62];
  }
  return id;
}
