import { resetAfter } from "./reset-after.ts";
import type { SimDirective } from "./types.ts";

const SSE_HEADERS = { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" };
const encoder = new TextEncoder();

/** An SSE frame whose data is not valid JSON, for the `malformed` fault. */
function breakFrame(frame: string): string {
  const dataAt = frame.indexOf("data: ");
  return `${dataAt >= 0 ? frame.slice(0, dataAt) : ""}data: {"type": broken\n\n`;
}

/** The frames one at a time, `gapMs` apart; a client that leaves stops the timer. */
function slowBody(frames: readonly string[], gapMs: number): ReadableStream<Uint8Array> {
  let next = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  return new ReadableStream<Uint8Array>({
    pull(controller) {
      if (next === 0) {
        controller.enqueue(encoder.encode(frames[next++] ?? ""));
        if (next >= frames.length) controller.close();
        return;
      }
      return new Promise<void>((resolve) => {
        timer = setTimeout(() => {
          controller.enqueue(encoder.encode(frames[next++] ?? ""));
          if (next >= frames.length) controller.close();
          resolve();
        }, gapMs);
      });
    },
    cancel() {
      clearTimeout(timer);
    },
  });
}

/**
 * Sends pre-built SSE frames (each ends with a blank line) as one chunked body, applying the
 * `malformedAt` and `cutAfterEvents` faults. A frame is one event; `[DONE]` and `ping` count too.
 */
export function sendEvents(frames: string[], fault: SimDirective, extraHeaders: Record<string, string> = {}): Response {
  const headers = { ...SSE_HEADERS, ...extraHeaders };
  if (fault.malformedAt !== undefined && fault.malformedAt < frames.length) {
    const at = fault.malformedAt;
    frames[at] = breakFrame(frames[at] ?? "");
  }
  if (fault.cutAfterEvents !== undefined && fault.cutAfterEvents < frames.length) {
    return resetAfter(frames.slice(0, fault.cutAfterEvents).join(""), headers);
  }
  if (fault.gapMs !== undefined && fault.gapMs > 0) return new Response(slowBody(frames, fault.gapMs), { headers });
  const bytes = encoder.encode(frames.join(""));
  // A stream body (chunked, no content-length) as real SSE endpoints send.
  const body = new ReadableStream<Uint8Array>({
    start(controller) {
      controller.enqueue(bytes);
      controller.close();
    },
  });
  return new Response(body, { headers });
}
