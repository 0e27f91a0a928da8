import { ZERO_USAGE, type Usage } from "../../canonical/usage.ts";
import { isJsonObject } from "../../canonical/json-object.ts";
import type { MessagesUsage } from "./shapes.ts";

const count = (value: unknown): number => (typeof value === "number" && Number.isFinite(value) && value > 0 ? value : 0);

/**
 * Messages usage → canonical. Messages `input_tokens` leaves out cache reads and writes, the
 * canonical count includes them, so they are added back. `base` supplies the fields an update
 * does not carry (a `message_delta` may hold only `output_tokens`).
 */
export function decodeMessagesUsage(raw: unknown, base: Usage = ZERO_USAGE): Usage {
  if (!isJsonObject(raw)) return base;
  const has = (key: string): boolean => typeof raw[key] === "number";
  const cacheRead = has("cache_read_input_tokens") ? count(raw.cache_read_input_tokens) : base.cacheReadTokens;
  const cacheWrite = has("cache_creation_input_tokens") ? count(raw.cache_creation_input_tokens) : base.cacheWriteTokens;
  const uncached = has("input_tokens") ? count(raw.input_tokens) : Math.max(0, base.inputTokens - base.cacheReadTokens - base.cacheWriteTokens);
  const details = isJsonObject(raw.output_tokens_details) ? raw.output_tokens_details : null;
  return {
    inputTokens: uncached + cacheRead + cacheWrite,
    outputTokens: has("output_tokens") ? count(raw.output_tokens) : base.outputTokens,
    cacheReadTokens: cacheRead,
    cacheWriteTokens: cacheWrite,
    reasoningTokens: details && typeof details.thinking_tokens === "number" ? count(details.thinking_tokens) : base.reasoningTokens,
  };
}

/**
 * Canonical usage → the Messages `usage` object of an answer (input without cache reads and
 * writes), with the keys the API sends; `server_tool_use` and `inference_geo` are left out, as
 * the API does when they do not apply (never null).
 */
export function encodeMessagesUsage(usage: Usage): MessagesUsage {
  return {
    input_tokens: Math.max(0, usage.inputTokens - usage.cacheReadTokens - usage.cacheWriteTokens),
    cache_creation_input_tokens: usage.cacheWriteTokens,
    cache_read_input_tokens: usage.cacheReadTokens,
    // The TTL split is unknown across formats; writes are reported at the default 5-minute TTL.
    cache_creation: { ephemeral_5m_input_tokens: usage.cacheWriteTokens, ephemeral_1h_input_tokens: 0 },
    output_tokens: usage.outputTokens,
    output_tokens_details: { thinking_tokens: usage.reasoningTokens },
    service_tier: "standard",
  };
}

/** The usage in a Messages stream's first event (`message_start`), which holds the input counts. */
function firstEventUsage(firstEvent: string): unknown {
  try {
    const parsed: unknown = JSON.parse(firstEvent);
    if (isJsonObject(parsed) && isJsonObject(parsed.message)) return parsed.message.usage;
  } catch {
    // A first event that passed the check but carries no usage: the tail has to do.
  }
  return undefined;
}

/**
 * A passed-through Messages answer's usage: the last `usage` object of its tail (a stream's final
 * `message_delta` may hold only the output) over what its `message_start` reported.
 */
export function readMessagesUsage(lastUsage: unknown, firstEvent?: string): Usage | undefined {
  const start = firstEvent === undefined ? undefined : firstEventUsage(firstEvent);
  if (lastUsage === undefined && start === undefined) return undefined;
  return decodeMessagesUsage(lastUsage, decodeMessagesUsage(start));
}
