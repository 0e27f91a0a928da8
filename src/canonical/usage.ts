/**
 * Token usage. `inputTokens` counts **all** prompt tokens, cached ones included (the OpenAI
 * meaning); the Messages encoder subtracts cache reads and writes because Messages
 * `input_tokens` excludes them. `outputTokens` includes `reasoningTokens`.
 */
export interface Usage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly cacheReadTokens: number;
  readonly cacheWriteTokens: number;
  readonly reasoningTokens: number;
  /** Counted by the gateway (the upstream never said): a stream that ended early, or an upstream without usage. */
  readonly estimated?: boolean;
}

export const ZERO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};

/** Two usages added up, count by count (the messages of one answer, say). */
export const addUsage = (a: Usage, b: Usage): Usage => ({
  inputTokens: a.inputTokens + b.inputTokens,
  outputTokens: a.outputTokens + b.outputTokens,
  cacheReadTokens: a.cacheReadTokens + b.cacheReadTokens,
  cacheWriteTokens: a.cacheWriteTokens + b.cacheWriteTokens,
  reasoningTokens: a.reasoningTokens + b.reasoningTokens,
});
