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
}

export const ZERO_USAGE: Usage = {
  inputTokens: 0,
  outputTokens: 0,
  cacheReadTokens: 0,
  cacheWriteTokens: 0,
  reasoningTokens: 0,
};
