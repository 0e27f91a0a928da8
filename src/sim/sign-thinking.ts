/** Fixed secret: signatures only need to be stable and tied to the model, not secret. */
const SECRET = "routelane-sim-thinking-v1";

/** Signature of a thinking block: base64 HMAC-SHA256 over `model + "\n" + text`, so it only verifies for that model. */
export function signThinking(model: string, text: string): string {
  return new Bun.CryptoHasher("sha256", SECRET).update(`${model}\n${text}`).digest("base64");
}

export function verifyThinking(model: string, text: string, signature: unknown): boolean {
  return typeof signature === "string" && signature === signThinking(model, text);
}
