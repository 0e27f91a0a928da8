import { buildDirective, type DirectivePair } from "./build-directive.ts";
import type { SimDirective } from "./types.ts";

export interface ParsedDirectives {
  /** All directives for this model merged, later ones winning. */
  directive: SimDirective;
  /** The text with every `[sim …]` directive removed, so it is never echoed. */
  text: string;
}

const isSpace = (ch: string | undefined): boolean => ch === " " || ch === "\t" || ch === "\n" || ch === "\r";

/** End index (exclusive) of a JSON object starting at `start`, honouring strings; -1 if unbalanced. */
function scanObject(text: string, start: number): number {
  let depth = 0;
  let inString = false;
  for (let i = start; i < text.length; i++) {
    const ch = text[i];
    if (inString) {
      if (ch === "\\") i++;
      else if (ch === '"') inString = false;
    } else if (ch === '"') inString = true;
    else if (ch === "{") depth++;
    else if (ch === "}" && --depth === 0) return i + 1;
  }
  return -1;
}

/** Parses `key=value …]` from `pos`; returns the pairs and the index after `]`, or null. */
function scanPairs(text: string, pos: number): { pairs: DirectivePair[]; end: number } | null {
  const pairs: DirectivePair[] = [];
  let i = pos;
  for (;;) {
    while (isSpace(text[i])) i++;
    if (i >= text.length) return null;
    if (text[i] === "]") return { pairs, end: i + 1 };
    const eq = text.indexOf("=", i);
    if (eq < 0) return null;
    const key = text.slice(i, eq).trim();
    if (key === "" || /[\s\]]/.test(key)) return null;
    i = eq + 1;
    if (text[i] === "{") {
      const end = scanObject(text, i);
      if (end < 0) return null;
      let value: unknown;
      try {
        value = JSON.parse(text.slice(i, end));
      } catch {
        value = undefined;
      }
      pairs.push([key, value]);
      i = end;
    } else if (text[i] === '"') {
      const close = text.indexOf('"', i + 1);
      if (close < 0) return null;
      pairs.push([key, text.slice(i + 1, close)]);
      i = close + 1;
    } else {
      const start = i;
      while (i < text.length && !isSpace(text[i]) && text[i] !== "]") i++;
      pairs.push([key, text.slice(start, i)]);
    }
  }
}

/**
 * Finds `[sim key=value …]` directives in the newest user text, e.g. `[sim status=503 message="busy"]`,
 * `[sim tool=get_weather args={"city":"Paris"}]`, `[sim model=sim-normal-1 cut=3]`.
 */
export function parseDirectives(text: string, model: string): ParsedDirectives {
  if (!text.includes("[sim")) return { directive: {}, text };
  let directive: SimDirective = {};
  let clean = "";
  let from = 0;
  let at = text.indexOf("[sim", 0);
  while (at >= 0) {
    const after = text[at + 4];
    const scanned = isSpace(after) || after === "]" ? scanPairs(text, at + 4) : null;
    if (scanned) {
      const one = buildDirective(scanned.pairs, model);
      if (one) directive = { ...directive, ...one };
      clean += text.slice(from, at);
      from = scanned.end;
      at = text.indexOf("[sim", from);
    } else {
      at = text.indexOf("[sim", at + 4);
    }
  }
  clean += text.slice(from);
  return { directive, text: clean };
}
