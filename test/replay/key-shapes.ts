import type { WireFormat } from "../../src/canonical/wire-format.ts";
import type { JsonObject, Recording } from "./recordings.ts";

/**
 * The keys seen at each kind of JSON object, and whether each was ever null. A kind is the object's
 * path from its root, where an object with a string `type` adds `<type>` (so a text block and a
 * tool-use block are different kinds) and array items are `[]`:
 * `event:message_start.message<message>.usage.cache_creation`.
 */
export type Shapes = Map<string, Map<string, { nullable: boolean }>>;

/** Keys whose values are the caller's own data (tool inputs, metadata, request echoes), not the API's shape. */
const OPAQUE = new Set(["input", "metadata", "parameters", "arguments"]);

export function addShapes(shapes: Shapes, kind: string, value: unknown): void {
  if (Array.isArray(value)) {
    for (const item of value) addShapes(shapes, `${kind}[]`, item);
    return;
  }
  if (value === null || typeof value !== "object") return;
  const object = value as JsonObject;
  const here = typeof object.type === "string" ? `${kind}<${object.type}>` : kind;
  let keys = shapes.get(here);
  if (keys === undefined) shapes.set(here, (keys = new Map()));
  for (const [key, child] of Object.entries(object)) {
    const seen = keys.get(key) ?? { nullable: false };
    seen.nullable ||= child === null;
    keys.set(key, seen);
    if (!OPAQUE.has(key)) addShapes(shapes, `${here}.${key}`, child);
  }
}

/** The root kind of one streamed event: its `type` (Messages, Responses) or `chunk` (Chat). */
export const eventRoot = (api: WireFormat, data: JsonObject): string => (api === "chat" ? "chunk" : `event:${String(data.type)}`);

/** What the recordings of `api` show: bodies under `body`, streamed events under their event root. */
export function recordedShapes(recordings: readonly Recording[], api: WireFormat): Shapes {
  const shapes: Shapes = new Map();
  for (const recording of recordings) {
    if (recording.api !== api) continue;
    if (!recording.stream) addShapes(shapes, "body", recording.body);
    else for (const event of recording.events ?? []) if (event !== null) addShapes(shapes, eventRoot(api, event), event);
  }
  return shapes;
}

/**
 * Where `emitted` steps outside `recorded`: a kind the recordings never show, a key they never show
 * at that kind, or null where they never have null.
 */
export function shapeDifferences(recorded: Shapes, emitted: Shapes): string[] {
  const out: string[] = [];
  for (const [kind, keys] of emitted) {
    const known = recorded.get(kind);
    if (known === undefined) {
      out.push(`${kind}: never recorded`);
      continue;
    }
    for (const [key, { nullable }] of keys) {
      const seen = known.get(key);
      if (seen === undefined) out.push(`${kind}.${key}: never recorded`);
      else if (nullable && !seen.nullable) out.push(`${kind}.${key}: null, never null in the recordings`);
    }
  }
  return out.sort();
}

/** Parses SSE text into each event's data (the `[DONE]` line is not JSON and is left out). */
export function sseData(text: string): JsonObject[] {
  return text
    .split("\n\n")
    .flatMap((frame) => frame.split("\n").filter((line) => line.startsWith("data: ")))
    .map((line) => line.slice("data: ".length))
    .filter((data) => data !== "[DONE]")
    .map((data) => JSON.parse(data) as JsonObject);
}
