import { invalidRequest } from "../canonical/gateway-error.ts";
import type { ParseScope } from "./create-parse-memo.ts";
import { MAX_JSON_DEPTH } from "./exceeds-json-depth.ts";
import { parseReusingPieces } from "./parse-reusing-pieces.ts";
import { scanJsonBytes } from "./scan-json-bytes.ts";
import { decodeUtf8 } from "./decode-utf8.ts";

/** A client's JSON text parsed, with where an object's top-level members lie in its bytes. */
export interface ParsedJson {
  readonly value: unknown;
  /** As `scanJsonBytes` gives them; absent when the text is not one object. */
  readonly members: readonly number[] | undefined;
}

/**
 * Parses JSON text from a client, as the UTF-8 bytes it came in, refusing text nested deeper than
 * MAX_JSON_DEPTH (checked by a scan before the parse, so a hostile body costs one pass over its
 * bytes and nothing more). The same scan finds where an object's top-level members lie, so the
 * body can be sent on as it came, less the members the gateway replaces, without serialising it
 * again (`encodeAsSent`). With `reuse`, the pieces of the body the account
 * sent before (a coding agent sends its whole conversation every turn) are not decoded or parsed
 * again (`parseReusingPieces`).
 */
export function parseJsonBytes(bytes: Uint8Array, reuse?: ParseScope): ParsedJson {
  // A body scanned through the account's memo: the elements its last body had in place are passed over.
  const skip = reuse?.skipper?.(bytes);
  const scan = scanJsonBytes(bytes, MAX_JSON_DEPTH, true, skip);
  if (scan.tooDeep) {
    throw invalidRequest(`request body nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`);
  }
  if (reuse) {
    try {
      const value = parseReusingPieces(bytes, scan, reuse);
      if (value !== undefined) return { value, members: scan.members };
    } catch {
      // The whole parse below says what is wrong with the text, as it does for any other.
    }
  }
  const text = decodeUtf8(bytes);
  try {
    return { value: JSON.parse(text), members: scan.members };
  } catch {
    // The parser's own message may quote the body, so it is not passed on.
    throw invalidRequest(/^\s*$/.test(text) ? "request body is required" : "request body is not valid JSON");
  }
}
