import type { WireFormat } from "../../canonical/wire-format.ts";

/** Byte sequences that mark a stream as properly finished (or already failed) in each format. */
const TERMINALS: Readonly<Record<WireFormat, readonly string[]>> = {
  messages: ["event: message_stop", "event: error"],
  chat: ["data: [DONE]", 'data: {"error"'],
  responses: ["event: response.completed", "event: response.incomplete", "event: response.failed", "event: error"],
};

export interface TerminalWatch {
  /** Looks at bytes as they go to the client. */
  observe(chunk: Uint8Array): void;
  /** Whether a terminal event has gone by. */
  readonly finished: boolean;
}

/**
 * Watches a passing stream for its terminal event without parsing it: a native byte search per
 * chunk, with the previous chunk's last bytes kept so a marker split across chunks is still seen.
 */
export function createTerminalWatch(format: WireFormat): TerminalWatch {
  const needles = TERMINALS[format].map((t) => Buffer.from(t));
  const keep = Math.max(...needles.map((n) => n.length)) - 1;
  let tail = Buffer.alloc(0);
  let finished = false;
  return {
    observe(chunk) {
      if (finished || chunk.byteLength === 0) return;
      const bytes = Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength);
      const seam = tail.length === 0 ? undefined : Buffer.concat([tail, bytes.subarray(0, keep)]);
      finished = needles.some((n) => bytes.indexOf(n) >= 0 || (seam !== undefined && seam.indexOf(n) >= 0));
      tail = Buffer.from(bytes.subarray(Math.max(0, bytes.length - keep)));
    },
    get finished() {
      return finished;
    },
  };
}
