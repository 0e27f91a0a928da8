import type { ParseScope } from "./create-parse-memo.ts";
import { readJsonStringAt } from "../wire/scan-json-string.ts";
import { MEMBER_OFFSETS } from "../canonical/member-offsets.ts";
import type { JsonTextScan } from "./scan-json-text.ts";

/** A member's value this long or longer is read in pieces (its elements when it is an array). */
const MIN_PIECED_CHARS = 1024;
/**
 * More pieces than this and the body is parsed whole: a piece costs a hash, a lookup and a parse of
 * its own, several times what the whole parse spends on it, and a conversation has hundreds of
 * messages, not hundreds of thousands (a 32 MB body of tiny elements would cost five times its parse).
 */
const MAX_PIECES = 10_000;

/** Where one piece's value goes: the member, and the element when the member is an array. */
interface Placed {
  readonly key: string;
  readonly index: number;
  /** How many elements the array has, by the scan. */
  readonly count: number;
  readonly value: unknown;
}

/**
 * The value of `text`, a JSON object as `scan` (with members) found it, with each big member's
 * value, or each element of a big array, read through `scope`: what the account sent before is
 * not parsed again. The rest of the text is parsed as usual, each piece standing in as `0`, so
 * that parse checks everything between the pieces (and `scope` each piece): the result is the one
 * `JSON.parse(text)` gives, or an error. `bytes`, one a character of `text`, go on to `scope`.
 * Undefined when the text is not read so (a repeated or odd key, no members found): parse it whole.
 */
export function parseReusingPieces(text: string, scan: JsonTextScan, scope: ParseScope, bytes?: Uint8Array): unknown {
  const { members, elements } = scan;
  if (!members || !elements) return undefined;
  let pieces = 0;
  for (let m = 0, i = 0; i < members.length; m++, i += MEMBER_OFFSETS) {
    if (members[i + 2]! - members[i + 3]! >= MIN_PIECED_CHARS) pieces += (elements[m]?.length ?? 2) / 2;
  }
  if (pieces > MAX_PIECES) return undefined;
  const skeleton: string[] = [];
  const placed: Placed[] = [];
  const keys = new Set<string>();
  let at = 0;
  const place = (key: string, index: number, count: number, start: number, end: number, member?: string): boolean => {
    if (start < at || end <= start) return false;
    skeleton.push(text.slice(at, start), "0");
    at = end;
    placed.push({ key, index, count, value: scope.read(text, start, end, bytes, member === undefined ? undefined : { member, index }) });
    return true;
  };
  for (let m = 0, i = 0; i < members.length; m++, i += MEMBER_OFFSETS) {
    const key = readJsonStringAt(text, members[i]!, members[i + 1]!);
    // With a repeated key the last value counts, which the pieces cannot tell; `__proto__` is an own member only as the parse makes it.
    if (key === undefined || key === "__proto__" || keys.has(key)) return undefined;
    keys.add(key);
    const valueEnd = members[i + 2]!;
    const valueStart = members[i + 3]!;
    if (valueEnd - valueStart < MIN_PIECED_CHARS) continue;
    const items = elements[m];
    if (items === undefined) {
      if (!place(key, -1, 0, valueStart, valueEnd)) return undefined;
      continue;
    }
    // The member's key as written names its elements' places for the memo (see ParseScope.skipper).
    const member = text.slice(members[i]!, members[i + 1]!);
    for (let e = 0; e < items.length; e += 2) {
      if (!place(key, e / 2, items.length / 2, items[e]!, items[e + 1]!, member)) return undefined;
    }
  }
  if (placed.length === 0) return undefined;
  skeleton.push(text.slice(at));
  const body: unknown = JSON.parse(skeleton.join(""));
  if (typeof body !== "object" || body === null || Array.isArray(body)) return undefined;
  const target = body as Record<string, unknown>;
  for (const { key, index, count, value } of placed) {
    if (index < 0) {
      if (target[key] !== 0) return undefined;
      target[key] = value;
      continue;
    }
    const list = target[key];
    if (!Array.isArray(list) || list.length !== count || list[index] !== 0) return undefined;
    list[index] = value;
  }
  return body;
}
