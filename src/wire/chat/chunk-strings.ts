import type { JsonPath } from "../json-shape.ts";

/** The strings that change from one Chat text chunk to the next: the delta's text or reasoning, a call's argument fragment. */
export const CHANGING_CHUNK_STRINGS: readonly JsonPath[] = [
  ["choices", 0, "delta", "content"],
  ["choices", 0, "delta", "reasoning_content"],
  ["choices", 0, "delta", "reasoning"],
  ["choices", 0, "delta", "tool_calls", 0, "function", "arguments"],
];

/** OpenAI's random padding, different on every chunk. */
export const CHUNK_PADDING: readonly JsonPath[] = [["obfuscation"]];
