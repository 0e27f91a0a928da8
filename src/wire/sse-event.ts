/** One parsed SSE event: its `event:` name (if any) and its joined `data:` lines. */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}
