import type { StreamTokens } from "../canonical/stream-tokens.ts";
import type { Usage } from "../canonical/usage.ts";

/**
 * The usage a stream is billed: the upstream's own when it reported the whole answer's; otherwise
 * (the client left, the upstream cut the stream or ended it with an error event, or never reported
 * usage) the input from the upstream's first usage event or counted from the request, and the output
 * counted from what was sent (never less than the upstream said so far), marked estimated.
 */
export function billStreamUsage(end: StreamTokens, countInput: () => number): Usage {
  // No answer costs nothing: all zeros is a decoder's stand-in for a usage never reported, and an
  // estimated one is what the upstream said before its final count.
  if (end.usage && !end.usage.estimated && end.usage.inputTokens + end.usage.outputTokens > 0) return end.usage;
  const start = end.startUsage ?? (end.usage?.estimated ? end.usage : undefined);
  const fromUpstream = start !== undefined && start.inputTokens > 0;
  return {
    inputTokens: fromUpstream ? start.inputTokens : countInput(),
    outputTokens: Math.max(start?.outputTokens ?? 0, end.sentTokens()),
    cacheReadTokens: fromUpstream ? start.cacheReadTokens : 0,
    cacheWriteTokens: fromUpstream ? start.cacheWriteTokens : 0,
    reasoningTokens: 0,
    estimated: true,
  };
}
