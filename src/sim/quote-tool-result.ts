const QUOTE_CHARS = 40;

/**
 * The part of a tool result the answer quotes: its first characters, and of a command's result
 * the command's own output (Codex's `exec_command` result puts a header of chunk id, wall time
 * and exit code before an `Output:` line).
 */
export function quoteToolResult(result: string): string {
  const output = /(?:^|\n)Output:\n([\s\S]*)$/.exec(result)?.[1];
  return (output ?? result).slice(0, QUOTE_CHARS);
}
