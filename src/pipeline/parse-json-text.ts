import { invalidRequest } from "../canonical/gateway-error.ts";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "./exceeds-json-depth.ts";

/**
 * Parses JSON text from a client, refusing text nested deeper than MAX_JSON_DEPTH (checked by a
 * scan before the parse, so a hostile body costs one pass over its text and nothing more).
 */
export function parseJsonText(text: string): unknown {
  if (exceedsJsonDepth(text, MAX_JSON_DEPTH)) {
    throw invalidRequest(`request body nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`);
  }
  try {
    return JSON.parse(text);
  } catch {
    // The parser's own message may quote the body, so it is not passed on.
    throw invalidRequest(/^\s*$/.test(text) ? "request body is required" : "request body is not valid JSON");
  }
}
