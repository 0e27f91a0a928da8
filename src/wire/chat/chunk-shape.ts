import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { readJsonString, scanJsonString, scanPlainJsonString } from "../scan-json-string.ts";

/**
 * The text of a Chat chunk with the strings that change from chunk to chunk cut out: the delta's
 * text or reasoning, a tool call's argument fragment, OpenAI's `obfuscation` padding. Within one
 * stream every other byte of such chunks repeats (id, created, model, index, finish_reason null),
 * so a chunk whose text is the pieces with a valid string literal in each hole parses to the
 * learned chunk with those strings in place, and is read without JSON.parse.
 */
export interface ChunkShape {
  /** The chunk the shape was learned from, parsed; a match writes its strings into it. */
  readonly chunk: JsonObject;
  /** The text around the holes: one more piece than holes. */
  readonly pieces: readonly string[];
  /** Where each hole's string goes in `chunk`, in the order the holes come in the text. */
  readonly holes: readonly Hole[];
}

interface Hole {
  readonly parent: JsonObject;
  readonly key: string;
}

interface Found {
  readonly path: readonly (string | number)[];
  readonly at: number;
  readonly end: number;
}

const DELTA_TEXT_KEYS = ["content", "reasoning_content", "reasoning"] as const;

function valueAt(root: unknown, path: readonly (string | number)[]): unknown {
  let value = root;
  for (const step of path) {
    if (typeof step === "number" ? !Array.isArray(value) : !isJsonObject(value)) return undefined;
    value = (value as Record<string | number, unknown>)[step];
  }
  return value;
}

/**
 * The string at `path` as a hole, when its literal can be found for certain: its key written
 * `"key":"` exactly once in the text, right after `{` or `,` (so the quote opens a key, not part of
 * a string), followed by a valid literal.
 */
function findHole(data: string, path: readonly (string | number)[], found: Found[]): void {
  const pattern = `"${String(path[path.length - 1])}":"`;
  const where = data.indexOf(pattern);
  if (where <= 0 || data.indexOf(pattern, where + 1) >= 0) return;
  const before = data.charCodeAt(where - 1);
  if (before !== 0x7b && before !== 0x2c) return;
  const at = where + pattern.length - 1;
  const end = scanJsonString(data, at);
  if (end > 0) found.push({ path, at, end });
}

/** A copy of a piece of the chunk's text, so that the shape does not hold the whole read chunk it was sliced from. */
const copyOf = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/**
 * The shape of a chunk that carries one piece of text (content, reasoning or one call's
 * arguments), learned from its text and its parse; undefined when the chunk has no such piece or
 * its literals cannot be placed for certain. Each hole is checked by parsing the text once more
 * with a marker string in every hole and finding each marker at its own place.
 */
export function learnChunkShape(data: string, chunk: JsonObject): ChunkShape | undefined {
  const choices = chunk.choices;
  if (!Array.isArray(choices) || choices.length !== 1) return undefined;
  const delta = valueAt(choices, [0, "delta"]);
  if (!isJsonObject(delta)) return undefined;
  const found: Found[] = [];
  for (const key of DELTA_TEXT_KEYS) if (typeof delta[key] === "string") findHole(data, ["choices", 0, "delta", key], found);
  const calls = delta.tool_calls;
  const argumentsPath = ["choices", 0, "delta", "tool_calls", 0, "function", "arguments"];
  if (Array.isArray(calls) && calls.length === 1 && typeof valueAt(chunk, argumentsPath) === "string") findHole(data, argumentsPath, found);
  if (found.length === 0) return undefined;
  if (typeof chunk.obfuscation === "string") findHole(data, ["obfuscation"], found);
  found.sort((a, b) => a.at - b.at);
  let probe = "";
  let from = 0;
  for (const [i, hole] of found.entries()) {
    if (hole.at < from) return undefined;
    probe += `${data.slice(from, hole.at)}"\\u0000${i}"`;
    from = hole.end;
  }
  probe += data.slice(from);
  let marked: unknown;
  try {
    marked = JSON.parse(probe);
  } catch {
    return undefined;
  }
  if (!found.every((hole, i) => valueAt(marked, hole.path) === `\u0000${i}`)) return undefined;
  const pieces: string[] = [];
  const holes: Hole[] = [];
  from = 0;
  for (const hole of found) {
    pieces.push(copyOf(data.slice(from, hole.at)));
    holes.push({ parent: valueAt(chunk, hole.path.slice(0, -1)) as JsonObject, key: String(hole.path[hole.path.length - 1]) });
    from = hole.end;
  }
  pieces.push(copyOf(data.slice(from)));
  return { chunk, pieces, holes };
}

/**
 * The learned chunk with this chunk's strings written into it, when `data` is the shape's pieces
 * with a valid string literal in each hole; undefined otherwise (the caller parses it). The object
 * is the shape's own, rewritten by the next match: read it before the next chunk, keep nothing of it.
 */
export function fillChunkShape(shape: ChunkShape, data: string): JsonObject | undefined {
  const { pieces, holes } = shape;
  let at = 0;
  for (let i = 0; i < holes.length; i++) {
    const piece = pieces[i]!;
    if (!data.startsWith(piece, at)) return undefined;
    at += piece.length;
    const hole = holes[i]!;
    let end = scanPlainJsonString(data, at);
    if (end > 0) {
      hole.parent[hole.key] = data.slice(at + 1, end - 1);
    } else {
      end = scanJsonString(data, at);
      if (end < 0) return undefined;
      hole.parent[hole.key] = readJsonString(data, at, end);
    }
    at = end;
  }
  const last = pieces[holes.length]!;
  return data.length - at === last.length && data.endsWith(last) ? shape.chunk : undefined;
}
