const LF = 10;

/** Index just past the first blank line (`\n\n` or `\r\n\r\n`), or -1 while none has arrived. */
export function endOfFirstEvent(buffer: Uint8Array): number {
  for (let i = 1; i < buffer.length; i++) {
    if (buffer[i] !== LF) continue;
    if (buffer[i - 1] === LF) return i + 1;
    if (buffer[i - 1] === 13 && i >= 3 && buffer[i - 2] === LF) return i + 1;
  }
  return -1;
}
