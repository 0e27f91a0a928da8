import type { WireFormat } from "../../canonical/wire-format.ts";
import { asBuffer } from "../as-buffer.ts";

/** Byte sequences that mark a stream as properly finished (or already failed) in each format. */
const TERMINALS: Readonly<Record<WireFormat, readonly Buffer[]>> = {
  messages: ["event: message_stop", "event: error"].map((t) => Buffer.from(t)),
  chat: ["data: [DONE]", 'data: {"error"'].map((t) => Buffer.from(t)),
  responses: ["event: response.completed", "event: response.incomplete", "event: response.failed", "event: error"].map((t) => Buffer.from(t)),
};

/** Messages and Chat terminators are the last event, and short: they sit in the stream's final bytes. */
const TAIL_BYTES = 256;
const LF = 10;

export interface TerminalWatch {
  /** Looks at bytes as they go to the client. */
  observe(chunk: Uint8Array): void;
  /** Whether a terminal event has gone by. */
  readonly finished: boolean;
}


/**
 * Watches a passing stream for its terminal event without parsing it.
 * Messages/Chat: only the last chunks are kept (by reference) and their tail searched at the end,
 * so a chunk costs nothing. Responses: the terminal event is large and its marker at its start,
 * so each chunk is searched; a marker split across chunks can only follow a chunk that did not
 * end a line (markers start lines), and only then is the seam searched.
 */
export function createTerminalWatch(format: WireFormat): TerminalWatch {
  const needles = TERMINALS[format];
  let previous: Buffer | undefined;
  let last: Buffer | undefined;
  let seen = false;

  const searchTail = (): boolean => {
    if (!last) return false;
    const joined = previous && last.length < TAIL_BYTES ? Buffer.concat([previous.subarray(-TAIL_BYTES), last]) : last;
    const from = Math.max(0, joined.length - TAIL_BYTES);
    return needles.some((n) => joined.indexOf(n, from) >= 0);
  };

  return {
    observe(chunk) {
      if (seen || chunk.byteLength === 0) return;
      const bytes = asBuffer(chunk);
      if (format === "responses") {
        const seam = last && last[last.length - 1] !== LF ? Buffer.concat([last.subarray(-64), bytes.subarray(0, 64)]) : undefined;
        seen = needles.some((n) => bytes.indexOf(n) >= 0 || (seam !== undefined && seam.indexOf(n) >= 0));
      }
      previous = last;
      last = bytes;
    },
    get finished() {
      return seen || (format !== "responses" && searchTail());
    },
  };
}
