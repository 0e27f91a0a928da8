import { scanJsonBytes } from "./scan-json-bytes.ts";

/**
 * How deeply a request body may nest arrays and objects. Real requests stay far below it (a tool's
 * JSON schema is the deepest part of an agent's request); past it, the recursive steps after the
 * parse (schema check, cache key, translation) would run out of stack.
 */
export const MAX_JSON_DEPTH = 256;

/**
 * Whether JSON text nests arrays and objects deeper than `limit`, found by one scan of the text
 * before it is parsed (`scanJsonBytes`, of the text's UTF-8: an admin body is small). Text that is not JSON may answer either way; the parse
 * refuses it after.
 */
export function exceedsJsonDepth(text: string, limit: number = MAX_JSON_DEPTH): boolean {
  // Fewer characters than the limit's brackets cannot nest that deep.
  if (text.length <= limit) return false;
  return scanJsonBytes(Buffer.from(text), limit, false).tooDeep;
}
