const encoder = new TextEncoder();
/** Time between the last bytes and the reset, so a reader gets those bytes before the error. */
const RESET_GAP_MS = 20;

/**
 * A 200 response whose body sends `payload` then resets the connection (no terminator, no
 * clean end): erroring the stream after a macrotask lets Bun flush the bytes first, and an
 * `undefined` reason keeps Bun from logging it.
 */
export function resetAfter(payload: string, headers: Record<string, string>): Response {
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      if (payload !== "") controller.enqueue(encoder.encode(payload));
      await new Promise((resolve) => setTimeout(resolve, RESET_GAP_MS));
      controller.error();
    },
  });
  return new Response(body, { headers });
}
