import type { StreamBeat } from "./create-stream-clock.ts";

/**
 * The client's side of a committed stream, as both paths (pass-through and translated) keep it:
 * whether a write is under way (a keep-alive must not land inside one), whether the client has
 * gone, and the beat the stream clock watches.
 */
export interface ClientLink {
  writing: boolean;
  gone: boolean;
  beat: StreamBeat | undefined;
}

export const newClientLink = (): ClientLink => ({ writing: false, gone: false, beat: undefined });

/**
 * Writes `chunk` and flushes it, waiting out backpressure; false once the client has gone (it took
 * 0 bytes). The answer is a plain value when no write had to wait (the usual case), a promise only
 * when one did, for the caller to await then alone: `await` on a plain value still waits a
 * microtask turn, which a stream would pay on every read when a model sends an event a read (the
 * same-format pipe in-process, an event a read: 0.3-2.7 µs an event less at each run's minimum, in
 * eleven alternating runs of eleven). An empty chunk is not written: a write of nothing reads as a
 * client gone.
 *
 * A stream's last write passes `flush` false: the response's end, right after, sends it with the
 * closing chunk. Flushed, the two went out apart (4.0 against 2.3 sendto calls a request on the
 * bench's same-format stream row, all the gateway's sockets counted).
 */
export function sendToClient(link: ClientLink, controller: ReadableStreamDirectController, chunk: Uint8Array | string, flush = true): boolean | Promise<boolean> {
  if (chunk.length === 0) return true;
  link.writing = true;
  const written = controller.write(chunk);
  // Backpressure: the flush follows once the client has taken the chunk.
  if (typeof written !== "number") return written.then((count) => taken(link, count) && (!flush || flushed(link, controller)));
  return taken(link, written) && (!flush || flushed(link, controller));
}

function flushed(link: ClientLink, controller: ReadableStreamDirectController): true {
  controller.flush();
  if (link.beat) link.beat.sent++;
  return true;
}

/**
 * Ends a stream whose last bytes were written (not flushed), at once: they go out with the closing
 * chunk. Left to the stream's source (its `pull` resolving), the end came a turn later, in a send
 * of its own when the bytes were written while the server still held the response's head (a
 * translated answer read whole: 2 sends to the client, now 1).
 */
export function endResponse(controller: ReadableStreamDirectController): void {
  try {
    const ending = controller.end();
    if (ending instanceof Promise) ending.catch(() => {});
  } catch {
    // A client that has gone has nothing left to end.
  }
}

/** Notes a write's end: false, and the client gone, when it took nothing. */
function taken(link: ClientLink, count: number): boolean {
  link.writing = false;
  if (count !== 0) return true;
  link.gone = true;
  return false;
}

/** A keep-alive for a quiet client, unless a write is under way, the client has gone or the stream is `done`. */
export function keepClientAlive(link: ClientLink, controller: ReadableStreamDirectController, keepalive: Uint8Array, done: boolean): void {
  if (link.writing || link.gone || done) return;
  const written = controller.write(keepalive);
  if (typeof written === "number" && written > 0) controller.flush();
}
