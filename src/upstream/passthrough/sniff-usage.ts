import type { Usage } from "../../canonical/usage.ts";
import type { WireApi } from "../../wire/wire-api.ts";
import { asBuffer } from "../as-buffer.ts";

const USAGE_KEY = '"usage":';

/** The JSON object that starts at `from` (its `{`), by brace matching that respects strings. */
function objectAt(text: string, from: number): string | undefined {
  let depth = 0;
  let inString = false;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c) i++;
      else if (c === 0x22) inString = false;
      continue;
    }
    if (c === 0x22) inString = true;
    else if (c === 0x7b) depth++;
    else if (c === 0x7d && --depth === 0) return text.slice(from, i + 1);
  }
  return undefined;
}

/** The last `usage` object in a piece of JSON text, parsed; undefined when there is none (or it is cut). */
export function lastUsageObject(text: string): unknown {
  let at = text.lastIndexOf(USAGE_KEY);
  while (at >= 0) {
    const open = text.indexOf("{", at + USAGE_KEY.length);
    const between = text.slice(at + USAGE_KEY.length, open).trim();
    if (open >= 0 && between === "") {
      const json = objectAt(text, open);
      if (json) {
        try {
          return JSON.parse(json);
        } catch {
          return undefined;
        }
      }
    }
    at = text.lastIndexOf(USAGE_KEY, at - 1);
  }
  return undefined;
}

/**
 * Usage of a passed-through answer, read after the last byte went out (never per chunk): from the
 * final events in the stream's tail (and from its first event where the API reports input there),
 * or from a JSON body.
 */
export function sniffUsage(api: WireApi, tail: readonly Uint8Array[], firstEvent?: string): Usage | undefined {
  const text = tail.length === 1 ? asBuffer(tail[0]!).toString("utf8") : Buffer.concat(tail.map(asBuffer)).toString("utf8");
  return api.readUsage(lastUsageObject(text), firstEvent);
}
