import { GatewayError } from "../canonical/gateway-error.ts";

/** An upstream's error body is read for its message only: never more than this. */
const ERROR_BODY_BYTES = 64 * 1024;

/**
 * A whole upstream body, read as it streams in and given up (the connection cancelled) as soon as it
 * passes `maxBytes`, so an answer too large never sits in memory whole.
 */
async function readUpTo(response: Response, maxBytes: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  const declared = Number(response.headers.get("content-length"));
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body?.cancel().catch(() => {});
    return { bytes: new Uint8Array(0), truncated: true };
  }
  if (!response.body) return { bytes: new Uint8Array(0), truncated: false };
  const reader = response.body.getReader();
  const parts: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      await reader.cancel().catch(() => {});
      return { bytes: Buffer.concat(parts), truncated: true };
    }
    parts.push(value);
  }
  return { bytes: parts.length === 1 ? parts[0]! : Buffer.concat(parts, total), truncated: false };
}

/** A non-streamed answer, at most `maxBytes`; a larger one fails with 502 without being held. */
export async function readCappedBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const { bytes, truncated } = await readUpTo(response, maxBytes);
  if (truncated) throw new GatewayError(502, "api_error", `upstream answer larger than ${maxBytes} bytes`);
  return bytes;
}

/** An upstream error body as text, its first 64 KiB at most (enough for any message worth showing). */
export async function readErrorText(response: Response): Promise<string> {
  try {
    const { bytes } = await readUpTo(response, ERROR_BODY_BYTES);
    return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString("utf8");
  } catch {
    return "";
  }
}
