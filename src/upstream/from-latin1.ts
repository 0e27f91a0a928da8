/**
 * Text read from bytes as Latin-1 (one character a byte: a copy, no decoding), as the UTF-8 it was.
 * Only text that holds a byte past ASCII is decoded: its UTF-8 length, which the runtime counts
 * natively, is then larger than its length. A regular expression looking for such a character
 * took 170 ns on 300 characters and 380 on 1,000 (a tally's count), this 28 and 35 (13 against 31
 * on 5).
 */
export function fromLatin1(text: string): string {
  return Buffer.byteLength(text, "utf8") === text.length ? text : Buffer.from(text, "latin1").toString("utf8");
}
