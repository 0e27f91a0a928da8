import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { WireFormat } from "../../src/canonical/wire-format.ts";

export type JsonObject = Record<string, unknown>;

/** The recorded corpus, copied into the repository (see its README for where it comes from). */
export const CORPUS_DIR = join(import.meta.dir, "..", "fixtures", "providers");

/** Corpus folder → the upstream API that produced its files. */
export const API_OF_FOLDER: Readonly<Record<string, WireFormat>> = {
  anthropic: "messages",
  "openai-chat": "chat",
  "openai-responses": "responses",
};

/** One recorded answer: a whole body (`.json`) or a stream (`.chunks.txt`, one event's data per line). */
export interface Recording {
  /** Path under the corpus folder, e.g. `anthropic/anthropic-text.json`: the name a request asks for. */
  readonly file: string;
  readonly api: WireFormat;
  readonly stream: boolean;
  /** Non-stream: the body as recorded. */
  readonly body?: unknown;
  /** Stream: each event's data, parsed; null where the recorded line is not JSON (a few are cut short, as sent). */
  readonly events?: readonly (JsonObject | null)[];
  /** Stream: each event's data as recorded. */
  readonly lines?: readonly string[];
}

function parseLine(line: string): JsonObject | null {
  try {
    return JSON.parse(line) as JsonObject;
  } catch {
    return null;
  }
}

function readRecording(folder: string, name: string): Recording {
  const file = `${folder}/${name}`;
  const api = API_OF_FOLDER[folder]!;
  const text = readFileSync(join(CORPUS_DIR, folder, name), "utf8");
  if (name.endsWith(".json")) return { file, api, stream: false, body: JSON.parse(text) };
  const lines = text.split("\n").filter((line) => line.trim() !== "");
  return { file, api, stream: true, lines, events: lines.map(parseLine) };
}

/** Every file of the corpus, sorted by name. */
export function loadRecordings(): Recording[] {
  return Object.keys(API_OF_FOLDER).flatMap((folder) =>
    readdirSync(join(CORPUS_DIR, folder))
      .filter((name) => name.endsWith(".json") || name.endsWith(".chunks.txt"))
      .sort()
      .map((name) => readRecording(folder, name)),
  );
}
