import { fail } from "../canonical/gateway-error.ts";

/** An upstream's error body is read for its message only: never more than this. */
const ERROR_BODY_BYTES = 64 * 1024;

interface Read {
  /** What was read, never more than the cap (the chunk that passed it is cut, as a view). */
  readonly chunks: readonly Uint8Array[];
  /** Whether the body ended within the cap. */
  readonly complete: boolean;
}

/**
 * A body as it streams in, given up (the connection cancelled) as soon as it passes `maxBytes` or
 * says it will (`content-length`), so a body too large is never held whole.
 */
async function readUpTo(response: Response, maxBytes: number): Promise<Read> {
  const declared = Number(response.headers.get("content-length"));
  if (!response.body) return { chunks: [], complete: true };
  if (Number.isFinite(declared) && declared > maxBytes) {
    await response.body.cancel().catch(() => {});
    return { chunks: [], complete: false };
  }
  const reader = response.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { chunks, complete: true };
    if (total + value.byteLength > maxBytes) {
      await reader.cancel().catch(() => {});
      chunks.push(value.subarray(0, maxBytes - total));
      return { chunks, complete: false };
    }
    total += value.byteLength;
    chunks.push(value);
  }
}

/**
 * The body's size as sent, when it bounds what reading it yields: a declared length of an
 * uncompressed body (a compressed one is inflated as it is read, to any size).
 */
function boundedLength(response: Response): number | undefined {
  const encoding = response.headers.get("content-encoding");
  if (encoding !== null && encoding !== "identity") return undefined;
  const declared = response.headers.get("content-length");
  return declared === null ? undefined : Number(declared);
}

/** A non-streamed answer, at most `maxBytes`; a larger one fails with 502 without being held. */
export async function readCappedBody(response: Response, maxBytes: number): Promise<Uint8Array> {
  const length = boundedLength(response);
  // Within the cap by its declared length: read whole natively, without a chunk loop in JS.
  if (length !== undefined && Number.isSafeInteger(length) && length <= maxBytes) return await response.bytes();
  const { chunks, complete } = await readUpTo(response, maxBytes);
  if (!complete) throw fail("UpstreamTooLarge", `upstream answer larger than ${maxBytes} bytes`);
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks);
}

/** An upstream error body as text, its first 64 KiB at most (enough for any message worth showing). */
export async function readErrorText(response: Response): Promise<string> {
  try {
    return Buffer.concat((await readUpTo(response, ERROR_BODY_BYTES)).chunks).toString("utf8");
  } catch {
    return "";
  }
}
