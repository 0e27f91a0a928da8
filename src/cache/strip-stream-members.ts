/** The top-level members a cached answer does not depend on: it is replayed as JSON or as a stream, as each request asks. */
const STREAM_MEMBERS = new Set(["stream", "stream_options"]);

/** How far from either end of the text a stream member is looked for (SDKs put `stream` and `stream_options` last). */
const WINDOW = 512;

const isSpace = (code: number): boolean => code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;

/** `value` as the text parsed to it, compared by its serialisation: false when the text is not exactly one JSON value. */
function sameValue(text: string, value: unknown): boolean {
  try {
    return JSON.stringify(JSON.parse(text)) === JSON.stringify(value);
  } catch {
    return false;
  }
}

/**
 * The request body's text as the client sent it, without its top-level `stream` and
 * `stream_options` members, found only where they lead or close the object (the members are
 * checked against the parsed `body`, so a `"stream"` inside a value is never taken for them), and
 * without whitespace next to its braces.
 * Undefined when a stream member sits elsewhere or the text does not match the body: the caller
 * serialises the parsed body instead. Compact text (what SDKs send) comes out exactly as
 * `JSON.stringify` of the body without those members would, so a key over either agrees.
 */
export function stripStreamMembers(text: string, body: Readonly<Record<string, unknown>>): string | undefined {
  const keys = Object.keys(body);
  let open = 0;
  while (open < text.length && isSpace(text.charCodeAt(open))) open++;
  let close = text.length - 1;
  while (close > open && isSpace(text.charCodeAt(close))) close--;
  if (text[open] !== "{" || text[close] !== "}") return undefined;
  // The members kept lie in [start, end): between the braces, less what was cut from either side.
  let start = open + 1;
  let end = close;
  let first = 0;
  let last = keys.length;
  while (last > first && STREAM_MEMBERS.has(keys[last - 1]!)) {
    const name = keys[last - 1]!;
    const from = Math.max(start, end - WINDOW);
    const found = text.slice(from, end).lastIndexOf(`"${name}"`);
    if (found < 0) return undefined;
    const at = from + found;
    let colon = at + name.length + 2;
    while (colon < end && isSpace(text.charCodeAt(colon))) colon++;
    if (text[colon] !== ":" || !sameValue(text.slice(colon + 1, end), body[name])) return undefined;
    let before = at - 1;
    while (before >= start && isSpace(text.charCodeAt(before))) before--;
    last--;
    if (before < start) {
      // The only member left: nothing else may remain.
      if (last !== first) return undefined;
      end = start;
      break;
    }
    if (text[before] !== ",") return undefined;
    end = before;
  }
  while (first < last && STREAM_MEMBERS.has(keys[first]!)) {
    const name = keys[first]!;
    let at = start;
    while (at < end && isSpace(text.charCodeAt(at))) at++;
    if (!text.startsWith(`"${name}"`, at)) return undefined;
    let colon = at + name.length + 2;
    while (colon < end && isSpace(text.charCodeAt(colon))) colon++;
    if (text[colon] !== ":") return undefined;
    // The value ends at the first comma after which the text before it is exactly that value.
    let comma = text.indexOf(",", colon);
    while (comma >= 0 && comma < end && comma - colon <= WINDOW && !sameValue(text.slice(colon + 1, comma), body[name])) comma = text.indexOf(",", comma + 1);
    if (comma < 0 || comma >= end || comma - colon > WINDOW) return undefined;
    first++;
    start = comma + 1;
  }
  if (keys.slice(first, last).some((key) => STREAM_MEMBERS.has(key))) return undefined;
  // Whitespace next to the braces does not count, as where a member was cut.
  while (start < end && isSpace(text.charCodeAt(start))) start++;
  while (end > start && isSpace(text.charCodeAt(end - 1))) end--;
  return start === 1 && end === text.length - 1 ? text : `{${text.slice(start, end)}}`;
}
