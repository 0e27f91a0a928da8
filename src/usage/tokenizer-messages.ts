/** What the main thread asks of the tokenizer thread: the tokens in each of `texts`, summed. */
export interface TokenizerRequest {
  readonly id: number;
  readonly texts: readonly string[];
}

/** The tokenizer thread's answer to the request with the same id: the sum, or why it could not count. */
export type TokenizerReply = { readonly id: number; readonly tokens: number } | { readonly id: number; readonly error: string };
