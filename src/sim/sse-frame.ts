/** An Anthropic / Responses SSE frame: `event:` line, `data:` line, blank line. */
export function sseFrame(event: string, data: unknown): string {
  return `event: ${event}\ndata: ${JSON.stringify(data)}\n\n`;
}

/** A Chat Completions SSE frame: no `event:` line. */
export function sseData(data: unknown): string {
  return `data: ${JSON.stringify(data)}\n\n`;
}
