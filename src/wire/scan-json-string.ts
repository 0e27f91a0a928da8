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
    const length = jsonEscapeLength(text.charCodeAt(i + 1), text.charCodeAt(i + 2), text.charCodeAt(i + 3), text.charCodeAt(i + 4), text.charCodeAt(i + 5));
    if (length === 0) return -1;
    i += length;
  }
  return -1;
}

/**
 * Where the count written at `text[at]` ends (just past its digits), with its value in `box`; -1
 * when no count as JSON writes one is there (no digit, a leading zero, more than `maxDigits`).
 * The caller checks what follows it.
 */
export function readCountDigits(text: string, at: number, maxDigits: number, box: { value: number }): number {
  let value = 0;
  let i = at;
  for (; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x30 || c > 0x39) break;
    value = value * 10 + (c - 0x30);
  }
  const digits = i - at;
  if (digits === 0 || digits > maxDigits || (digits > 1 && text.charCodeAt(at) === 0x30)) return -1;
  box.value = value;
  return i;
}

/**
 * The length of the escape a `\` followed by `escaped` begins in a JSON string (and by `h1`-`h4`,
 * the four hex digits a `\u` needs): 6 for `\uXXXX`, 2 for `\" \\ \/ \b \f \n \r \t`, 0 for
 * what JSON.parse refuses. Character codes or bytes alike (NaN past the end: no escape).
 */
export function jsonEscapeLength(escaped: number, h1: number, h2: number, h3: number, h4: number): number {
  if (escaped === 0x75) return isHex(h1) && isHex(h2) && isHex(h3) && isHex(h4) ? 6 : 0;
  return escaped === 0x22 || escaped === 0x5c || escaped === 0x2f || escaped === 0x62 || escaped === 0x66 || escaped === 0x6e || escaped === 0x72 || escaped === 0x74 ? 2 : 0;
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
