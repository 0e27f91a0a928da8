/**
 * Up to this many bytes JSC keeps a typed array's bytes inside the array itself, and the first read
 * of its `.buffer` moves them out to a new ArrayBuffer: about 1 µs a chunk, where a copy costs
 * about 0.15 µs. A model streaming an event a read hands the pipe such a chunk for every event.
 */
const COPY_UP_TO = 1000;

/**
 * A Buffer of the same bytes, for Buffer's native methods: a view (no copy) of a big chunk, a copy
 * of a small one (see COPY_UP_TO). A caller that writes into it (the model rewrite does) goes on
 * with the Buffer, never with the chunk, which may or may not show the writes.
 */
export function asBuffer(chunk: Uint8Array): Buffer {
  if (Buffer.isBuffer(chunk)) return chunk;
  return chunk.byteLength <= COPY_UP_TO ? Buffer.from(chunk) : Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
}
