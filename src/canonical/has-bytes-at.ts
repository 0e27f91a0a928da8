/**
 * Whether `bytes` holds `expected` at `at`: a native memcmp against a view, no copy made (the static
 * `Buffer.compare` of a view costs about two thirds of `Buffer#compare` given the range). A view cut
 * short by the end of `bytes` is shorter than `expected`, so never equal.
 */
export const hasBytesAt = (bytes: Uint8Array, at: number, expected: Uint8Array): boolean =>
  Buffer.compare(expected, bytes.subarray(at, at + expected.length)) === 0;
