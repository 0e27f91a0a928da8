/**
 * Where the JSON string literal opening at `text[at]` (a `"`) ends: the index just past its closing
 * quote, or -1 when there is no valid literal there (no quote, a raw control character, a bad
 * escape, no end). The grammar is JSON.parse's: any character but `"`, `\` and U+0000–U+001F, or
 * one of the escapes `\" \\ \/ \b \f \n \r \t \uXXXX`.
 */
export function scanJsonString(text: string, at: number): number {
  const n = text.length;
  if (text.charCodeAt(at) !== 0x22) return -1;
  let i = at + 1;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20) return -1;
    if (c !== 0x5c) {
      i++;
      continue;
    }
    const escaped = text.charCodeAt(i + 1);
    if (escaped === 0x75) {
      if (!isHex(text.charCodeAt(i + 2)) || !isHex(text.charCodeAt(i + 3)) || !isHex(text.charCodeAt(i + 4)) || !isHex(text.charCodeAt(i + 5))) return -1;
      i += 6;
    } else if (escaped === 0x22 || escaped === 0x5c || escaped === 0x2f || escaped === 0x62 || escaped === 0x66 || escaped === 0x6e || escaped === 0x72 || escaped === 0x74) {
      i += 2;
    } else {
      return -1;
    }
  }
  return -1;
}

/**
 * Where the literal opening at `text[at]` ends when it has no escape (the usual streamed text): the
 * index just past its closing quote, or -1 at the first `\`, raw control character or missing end
 * (scanJsonString then tells an escaped literal from an invalid one). Its value is
 * `text.slice(at + 1, end - 1)`.
 */
export function scanPlainJsonString(text: string, at: number): number {
  const n = text.length;
  if (text.charCodeAt(at) !== 0x22) return -1;
  for (let i = at + 1; i < n; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) return i + 1;
    if (c < 0x20 || c === 0x5c) return -1;
  }
  return -1;
}

/** The value of `text[at, end)` when it is exactly one JSON string literal (a key a lenient scan found), else undefined. */
export function readJsonStringAt(text: string, at: number, end: number): string | undefined {
  return scanJsonString(text, at) === end ? readJsonString(text, at, end) : undefined;
}

/** The value of the literal `text[at, end)` found by scanJsonString: sliced out when it has no escape, parsed when it has. */
export function readJsonString(text: string, at: number, end: number): string {
  const inner = text.slice(at + 1, end - 1);
  return inner.includes("\\") ? (JSON.parse(text.slice(at, end)) as string) : inner;
}

const isHex = (c: number): boolean => (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66);
