/**
 * Reads a process's stdout line by line until `done` says enough (or it ends). An unfinished line
 * read with the last chunk is not kept for the next call.
 */
export async function readLinesUntil(stream: ReadableStream<Uint8Array>, done: (lines: string[]) => boolean): Promise<string[]> {
  const lines: string[] = [];
  const decoder = new TextDecoder();
  let buffer = "";
  const reader = stream.getReader();
  while (!done(lines)) {
    const { value, done: ended } = await reader.read();
    if (ended) break;
    buffer += decoder.decode(value, { stream: true });
    const parts = buffer.split("\n");
    buffer = parts.pop() ?? "";
    lines.push(...parts);
  }
  reader.releaseLock();
  return lines;
}
