import { isJsonObject, type JsonObject } from "../canonical/json-object.ts";
import { readCountDigits, readJsonString, scanJsonString, scanPlainJsonString } from "./scan-json-string.ts";

/**
 * The text of a stream event with the strings that change from event to event cut out (a delta's
 * text, a call's argument fragment, OpenAI's `obfuscation` padding). Within one stream every other
 * byte of the frequent events repeats (ids, model, index, the delta's type), so an event whose
 * text is the pieces with a valid string literal in each hole (or the digits of a count, in a
 * count's hole) parses to the learned event with those values in place, and is read without
 * JSON.parse.
 */
export interface JsonShape {
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
  /** A count (a non-negative integer, as Responses' `sequence_number`) rather than a string. */
  readonly count: boolean;
}

/** Where a string sits in an event: keys and array indexes from the top. */
export type JsonPath = readonly (string | number)[];

interface Found {
  readonly path: JsonPath;
  readonly at: number;
  readonly end: number;
  readonly count: boolean;
}

function valueAt(root: unknown, path: JsonPath): unknown {
  let value = root;
  for (const step of path) {
    if (typeof step === "number" ? !Array.isArray(value) : !isJsonObject(value)) return undefined;
    value = (value as Record<string | number, unknown>)[step];
  }
  return value;
}

/**
 * Where the value of the key at the end of `path` starts, when the key can be found for certain:
 * written `"key":` exactly once in the text, right after `{` or `,` (so its quote opens a key, not
 * part of a string); -1 otherwise.
 */
function valueStart(data: string, path: JsonPath): number {
  const pattern = `"${String(path[path.length - 1])}":`;
  const where = data.indexOf(pattern);
  if (where <= 0 || data.indexOf(pattern, where + 1) >= 0) return -1;
  const before = data.charCodeAt(where - 1);
  return before === 0x7b || before === 0x2c ? where + pattern.length : -1;
}

/** The string at `path` as a hole, when its key can be found for certain (see valueStart) and a valid literal follows it. */
function findHole(data: string, path: JsonPath, found: Found[]): void {
  const at = valueStart(data, path);
  const end = at < 0 ? -1 : scanJsonString(data, at);
  if (end > 0) found.push({ path, at, end, count: false });
}

/** The most digits a count hole reads: every such count is a safe integer. */
export const MAX_COUNT_DIGITS = 15;

/**
 * The count `value` at `path` as a hole, when its key can be found for certain (see valueStart)
 * and the value's digits, as JSON writes them, follow it and no more digits.
 */
function findCountHole(data: string, path: JsonPath, value: number, found: Found[]): void {
  const at = valueStart(data, path);
  const digits = String(value);
  const end = at + digits.length;
  if (at >= 0 && data.startsWith(digits, at) && !isDigit(data.charCodeAt(end))) found.push({ path, at, end, count: true });
}

const isDigit = (c: number): boolean => c >= 0x30 && c <= 0x39;

/** Whether `value` can be a count hole's: a non-negative integer of at most MAX_COUNT_DIGITS digits. */
const isCount = (value: unknown): value is number => typeof value === "number" && Number.isInteger(value) && value >= 0 && value < 10 ** MAX_COUNT_DIGITS;

/** A copy of a piece of the event's text, so that the shape does not hold the whole read chunk it was sliced from. */
const copyOf = (text: string): string => JSON.parse(JSON.stringify(text)) as string;

/**
 * The shape of an event that carries one of the `wanted` strings (the text that changes from
 * event to event), with a hole for each of those and of the `optional` ones it has, and for each of
 * the `counts` it has; undefined when it has none of the wanted, or their literals cannot be placed
 * for certain. Each hole is checked by parsing the text once more with a marker string in every
 * hole and finding each marker at its own place.
 */
function learnJsonShape(data: string, chunk: JsonObject, wanted: readonly JsonPath[], optional: readonly JsonPath[] = [], counts: readonly JsonPath[] = []): JsonShape | undefined {
  const found: Found[] = [];
  // An empty text (a role chunk's `content: ""`) marks an event that does not come again.
  for (const path of wanted) {
    const value = valueAt(chunk, path);
    if (typeof value === "string" && value !== "") findHole(data, path, found);
  }
  if (found.length === 0) return undefined;
  for (const path of optional) if (typeof valueAt(chunk, path) === "string") findHole(data, path, found);
  for (const path of counts) {
    const value = valueAt(chunk, path);
    if (isCount(value)) findCountHole(data, path, value, found);
  }
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
    holes.push({ parent: valueAt(chunk, hole.path.slice(0, -1)) as JsonObject, key: String(hole.path[hole.path.length - 1]), count: hole.count });
    from = hole.end;
  }
  pieces.push(copyOf(data.slice(from)));
  return { chunk, pieces, holes };
}

/** One box for a count hole's value, not one a call. */
const COUNT = { value: 0 };

/**
 * The learned chunk with this chunk's strings written into it, when `data` is the shape's pieces
 * with a valid string literal in each hole; undefined otherwise (the caller parses it). The object
 * is the shape's own, rewritten by the next match: read it before the next chunk, keep nothing of it.
 */
function fillJsonShape(shape: JsonShape, data: string): JsonObject | undefined {
  const { pieces, holes } = shape;
  let at = 0;
  for (let i = 0; i < holes.length; i++) {
    const piece = pieces[i]!;
    if (!data.startsWith(piece, at)) return undefined;
    at += piece.length;
    const hole = holes[i]!;
    if (hole.count) {
      at = readCountDigits(data, at, MAX_COUNT_DIGITS, COUNT);
      if (at < 0) return undefined;
      hole.parent[hole.key] = COUNT.value;
      continue;
    }
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

/** A stream's learned shape, and what it may still spend on learning one. Mutated in place: one per stream. */
export interface ShapeMemory {
  shape: JsonShape | null;
  /** Events still to parse before the first try: learning costs several parses, which a short answer never earns back. */
  wait: number;
  /** Events the stream may still learn a shape from (each try costs a search and a parse). */
  tries: number;
  /** Events read through a shape: every SHAPE_REFILL of them earn a try back. */
  fills: number;
  /** The shape's pieces as the bytes of an SSE event, and perhaps the last and first joined (see readShapedEvent), once read so; dropped with the shape. */
  framed: readonly Uint8Array[] | null;
  /** The `event:` name of the event the shape was learned from, if it had one: the name its bytes are framed with. */
  name: string | undefined;
}

/** Enough for a stream's kinds of frequent event (reasoning, text, a call's arguments) to each get a turn. */
const SHAPE_TRIES = 4;
/**
 * A shape that served this many events earns a try back, so a stream whose repeated bytes change
 * now and then (xAI's `created` ticks each second, a new block's index) learns again, at no more
 * than one try per this many.
 */
const SHAPE_REFILL = 32;

/**
 * Events parsed before a stream starts learning: a shape saves about 0.2 µs an event and costs
 * about 2.5 µs to learn, so a short answer (a few dozen events) is better off parsed.
 */
const SHAPE_WAIT = 16;

export const newShapeMemory = (tries = SHAPE_TRIES): ShapeMemory => ({ shape: null, wait: SHAPE_WAIT, tries, fills: 0, framed: null, name: undefined });

/** Counts an event read through the shape (see SHAPE_REFILL). */
export function noteShapeFill(memory: ShapeMemory): void {
  if (++memory.fills % SHAPE_REFILL === 0 && memory.tries < SHAPE_TRIES) memory.tries++;
}

/** The event `data` read through the stream's shape, or undefined when it has none or `data` does not fit it (then parse it). */
export function readShaped(memory: ShapeMemory, data: string): JsonObject | undefined {
  if (memory.shape === null) return undefined;
  const filled = fillJsonShape(memory.shape, data);
  if (filled !== undefined) noteShapeFill(memory);
  return filled;
}

/**
 * Learns a shape from a parsed event (see learnJsonShape), while tries are left; a failed try keeps
 * the shape there was. `counts` are counts that change from event to event; `name` is the event's
 * SSE name, if it had one.
 */
export function learnShape(memory: ShapeMemory, data: string, event: JsonObject, wanted: readonly JsonPath[], optional: readonly JsonPath[] = [], counts: readonly JsonPath[] = [], name?: string): void {
  if (memory.wait > 0) {
    memory.wait--;
    return;
  }
  if (memory.tries <= 0) return;
  memory.tries--;
  const shape = learnJsonShape(data, event, wanted, optional, counts);
  if (shape) {
    memory.shape = shape;
    memory.framed = null;
    memory.name = name;
  }
}
