import type { Usage } from "./usage.ts";

/**
 * What a stream's end tells about its tokens: what the upstream reported, and what the gateway
 * counted of the text it sent. How a stream ended (passed through or translated) carries it, and
 * billing reads it.
 */
export interface StreamTokens {
  /** The upstream's usage for the whole answer, when it reported one. */
  readonly usage?: Usage;
  /** The upstream's usage at the start (Messages `message_start`: the input tokens), when it reported one. */
  readonly startUsage?: Usage;
  /** The tokens of the text the client was sent, counted by the gateway (only when needed). */
  sentTokens(): number;
}

/**
 * A stream's tokens: `counted` tallies the text sent (counted only when asked), the usages as the
 * upstream reported them. Every member is set, in one order, so every stream's end has one shape.
 */
export function streamTokens(counted: { tokens(): number }, usage: Usage | undefined, startUsage: Usage | undefined): StreamTokens {
  return { usage, startUsage, sentTokens: () => counted.tokens() };
}
