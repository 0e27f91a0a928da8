import { invalidRequest } from "../canonical/gateway-error.ts";
import type { ParseScope } from "./create-parse-memo.ts";
import { MAX_JSON_DEPTH } from "./exceeds-json-depth.ts";
import { parseReusingPieces } from "./parse-reusing-pieces.ts";
import { scanJsonText } from "./scan-json-text.ts";

/** A client's JSON text parsed, with where an object's top-level members lie in it. */
export interface ParsedJsonText {
  readonly value: unknown;
  /** As `scanJsonText` gives them; absent when not asked for or the text is not one object. */
  readonly members: readonly number[] | undefined;
}

/**
 * Parses JSON text from a client, refusing text nested deeper than MAX_JSON_DEPTH (checked by a
 * scan before the parse, so a hostile body costs one pass over its text and nothing more). The
 * same scan finds, with `members`, where an object's top-level members lie, so the body can be
 * sent on as it came, less the members the gateway replaces, without serialising it again
 * (`encodeAsSent`). With `reuse`, the pieces of the text the account sent before (a coding agent
 * sends its whole conversation every turn) are not parsed again (`parseReusingPieces`).
 */
export function parseJsonText(text: string, members = true, reuse?: ParseScope): ParsedJsonText {
  // A body scanned through the account's memo: the elements its last body had in place are passed over.
  const skip = reuse?.skipper?.(text);
  const scan = scanJsonText(text, MAX_JSON_DEPTH, members || reuse !== undefined, skip);
  if (scan.tooDeep) {
    throw invalidRequest(`request body nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`);
  }
  const found = members ? scan.members : undefined;
  if (reuse) {
    try {
      const value = parseReusingPieces(text, scan, reuse);
      if (value !== undefined) return { value, members: found };
    } catch {
      // The whole parse below says what is wrong with the text, as it does for any other.
    }
  }
  try {
    return { value: JSON.parse(text), members: found };
  } catch {
    // The parser's own message may quote the body, so it is not passed on.
    throw invalidRequest(/^\s*$/.test(text) ? "request body is required" : "request body is not valid JSON");
  }
}
