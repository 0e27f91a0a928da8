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

/** Writes `chunk` and flushes it, waiting out backpressure; false once the client has gone (it took 0 bytes). */
export const sendToClient = (link: ClientLink, controller: ReadableStreamDirectController, chunk: Uint8Array | string): Promise<boolean> =>
  sendEachToClient(link, controller, [chunk]);

/**
 * `sendToClient` for several pieces, written one after the other and flushed once: no piece is
 * joined to another first. Empty pieces are passed over (a write of nothing reads as a client gone).
 */
export async function sendEachToClient(link: ClientLink, controller: ReadableStreamDirectController, pieces: readonly (Uint8Array | string)[]): Promise<boolean> {
  let wrote = false;
  for (const piece of pieces) {
    if (piece.length === 0) continue;
    link.writing = true;
    const written = controller.write(piece);
    const count = typeof written === "number" ? written : await written;
    link.writing = false;
    if (count === 0) {
      link.gone = true;
      return false;
    }
    wrote = true;
  }
  if (!wrote) return true;
  controller.flush();
  if (link.beat) link.beat.sent++;
  return true;
}

/** A keep-alive for a quiet client, unless a write is under way, the client has gone or the stream is `done`. */
export function keepClientAlive(link: ClientLink, controller: ReadableStreamDirectController, keepalive: Uint8Array, done: boolean): void {
  if (link.writing || link.gone || done) return;
  const written = controller.write(keepalive);
  if (typeof written === "number" && written > 0) controller.flush();
}
