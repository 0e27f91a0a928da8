/** `retry-after` on the statuses a real provider sends it with, so client back-off paths run. */
export function retryHeaders(status: number): Record<string, string> {
  return status === 429 || status === 503 ? { "retry-after": "1" } : {};
}
