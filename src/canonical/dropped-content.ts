/**
 * Answer content with no place in the canonical model (server-tool blocks and items, compaction,
 * MCP calls …), dropped when an answer is translated: named in the conversion's warnings in one
 * form, so the pipeline can tell the caller which kinds were left out.
 */
const PREFIX = "answer content dropped (no counterpart in other formats): ";

export const droppedWarning = (kind: string): string => `${PREFIX}${kind}`;

/** The kinds of content the warnings say were dropped, each once, in order. */
export function droppedKinds(warnings: readonly string[]): string[] {
  return [...new Set(warnings.filter((w) => w.startsWith(PREFIX)).map((w) => w.slice(PREFIX.length)))];
}
