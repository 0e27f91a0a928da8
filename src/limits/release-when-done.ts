/**
 * Wraps a response body so `release` runs exactly once when it has been sent to the end, when the
 * upstream side fails mid-way, or when the client goes away (the server cancels the body). This is
 * what keeps a streamed request's concurrency slot from leaking. `release` must be idempotent
 * (a Lease's is), since the pipeline may also release on its own error paths.
 */
export function releaseWhenDone(body: ReadableStream<Uint8Array>, release: () => void): ReadableStream<Uint8Array> {
  const reader = body.getReader();
  return new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        let chunk: Awaited<ReturnType<typeof reader.read>>;
        try {
          chunk = await reader.read();
        } catch (err) {
          release();
          controller.error(err);
          return;
        }
        if (chunk.done) {
          release();
          controller.close();
          return;
        }
        controller.enqueue(chunk.value);
      },
      async cancel(reason) {
        release();
        await reader.cancel(reason).catch(() => {});
      },
    },
    { highWaterMark: 0 },
  );
}
