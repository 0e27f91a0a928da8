/** Margin over the gateway's own deadlines, so that they, with their error events, always fire first. */
const MARGIN_MS = 30_000;

/**
 * The socket idle timeout given to an upstream `fetch`. Bun's default (300 s since the last byte,
 * `BUN_CONFIG_HTTP_IDLE_TIMEOUT`) would cut a stream the gateway's own limits still allow (a
 * configured idle limit or first-byte deadline above it), and without the format's error event; the
 * gateway's deadlines end every call before this one, which stays only as a backstop.
 */
export function upstreamFetchTimeout(firstByteMs: number, idleMs: number): number {
  return Math.max(firstByteMs, idleMs) + MARGIN_MS;
}
