/** Decodes as `Body.text()` does: invalid sequences become U+FFFD, a leading byte-order mark goes. */
const utf8 = new TextDecoder();

/**
 * The text of `bytes[start, end)`, UTF-8. A body is decoded in parts only where it is cut at an
 * ASCII byte (its JSON structure), which ends any sequence: the parts read as the whole would.
 */
export const decodeUtf8 = (bytes: Uint8Array, start = 0, end = bytes.length): string =>
  utf8.decode(start === 0 && end === bytes.length ? bytes : bytes.subarray(start, end));
