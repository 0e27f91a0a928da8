import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import type { Usage } from "../../../src/canonical/usage.ts";

export const FINAL_USAGE: Usage = { inputTokens: 1200, outputTokens: 95, cacheReadTokens: 1000, cacheWriteTokens: 150, reasoningTokens: 30 };
export const START_USAGE: Usage = { inputTokens: 1200, outputTokens: 1, cacheReadTokens: 1000, cacheWriteTokens: 150, reasoningTokens: 0 };

/** A full answer: signed thinking, text, two parallel tool calls with arguments in fragments. */
export const TOOL_STREAM: StreamEvent[] = [
  { type: "start", id: "msg_1", model: "normal", usage: START_USAGE },
  { type: "block_start", index: 0, block: { type: "thinking" } },
  { type: "thinking_delta", index: 0, text: "Two lookups " },
  { type: "thinking_delta", index: 0, text: "are needed." },
  { type: "signature_delta", index: 0, signature: "c2lnbmF0dXJl" },
  { type: "block_stop", index: 0 },
  { type: "block_start", index: 1, block: { type: "text" } },
  { type: "text_delta", index: 1, text: "Checking " },
  { type: "text_delta", index: 1, text: "both." },
  { type: "block_stop", index: 1 },
  { type: "block_start", index: 2, block: { type: "tool_call", id: "toolu_a", name: "get_weather" } },
  { type: "tool_args_delta", index: 2, fragment: '{"city":' },
  { type: "tool_args_delta", index: 2, fragment: '"Paris"}' },
  { type: "block_stop", index: 2 },
  { type: "block_start", index: 3, block: { type: "tool_call", id: "toolu_b", name: "get_time" } },
  { type: "tool_args_delta", index: 3, fragment: '{"zone":"CET"}' },
  { type: "block_stop", index: 3 },
  { type: "finish", stopReason: { unified: "tool_use", raw: "tool_use" }, usage: FINAL_USAGE },
];
