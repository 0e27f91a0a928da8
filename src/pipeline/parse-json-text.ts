import { invalidRequest } from "../canonical/gateway-error.ts";
import { isJsonObject } from "../canonical/json-object.ts";
import { MAX_JSON_DEPTH } from "./exceeds-json-depth.ts";
import { scanJsonText } from "./scan-json-text.ts";
import { keepSentMembers } from "./encode-as-sent.ts";

/**
 * Parses JSON text from a client, refusing text nested deeper than MAX_JSON_DEPTH (checked by a
 * scan before the parse, so a hostile body costs one pass over its text and nothing more). The
 * same scan finds where an object's top-level members lie: the body can be sent on as it came,
 * less the members the gateway replaces (`encodeAsSent`), without serialising it again; from
 * `bytes`, the bytes the text was decoded from, when given.
 */
export function parseJsonText(text: string, bytes?: Uint8Array): unknown {
  const scan = scanJsonText(text, MAX_JSON_DEPTH, true);
  if (scan.tooDeep) {
    throw invalidRequest(`request body nests arrays and objects deeper than the limit of ${MAX_JSON_DEPTH} levels`);
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    // The parser's own message may quote the body, so it is not passed on.
    throw invalidRequest(/^\s*$/.test(text) ? "request body is required" : "request body is not valid JSON");
  }
  if (scan.members && isJsonObject(value)) keepSentMembers(value, text, scan.members, bytes);
  return value;
}
