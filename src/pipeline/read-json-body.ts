import { GatewayError, invalidRequest } from "../canonical/gateway-error.ts";

const tooLarge = (limit: number): GatewayError =>
  new GatewayError(413, "request_too_large", `request body exceeds the limit of ${limit} bytes`);

async function readLimited(body: ReadableStream<Uint8Array>, limit: number): Promise<string> {
  const reader = body.getReader();
  const parts: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel();
      throw tooLarge(limit);
    }
    parts.push(value);
  }
  return new TextDecoder().decode(Buffer.concat(parts));
}

/**
 * Reads and parses a JSON request body, refusing one larger than `limit` bytes: by its declared
 * length before reading, or while streaming when no length was declared.
 */
export async function readJsonBody(request: Request, limit: number): Promise<unknown> {
  const declared = request.headers.get("content-length");
  if (declared !== null && Number(declared) > limit) throw tooLarge(limit);
  if (!request.body || declared === "0") throw invalidRequest("request body is required");
  if (declared !== null) {
    // Declared and within the limit: Bun parses straight from the bytes, no intermediate string.
    try {
      return await request.json();
    } catch {
      // The parser's own message may quote the body, so it is not passed on.
      throw invalidRequest("request body is not valid JSON");
    }
  }
  const text = await readLimited(request.body, limit);
  try {
    return JSON.parse(text);
  } catch {
    throw invalidRequest(/^\s*$/.test(text) ? "request body is required" : "request body is not valid JSON");
  }
}
