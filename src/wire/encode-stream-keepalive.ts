import type { WireFormat } from "../canonical/wire-format.ts";

const encoder = new TextEncoder();

/**
 * What keeps a quiet stream's connection alive, as each API does it: Messages sends `ping` events
 * (the shape the real API sends); Chat and Responses define none, and an SSE comment line is what
 * every SSE parser skips.
 */
export const STREAM_KEEPALIVE: Readonly<Record<WireFormat, Uint8Array>> = {
  messages: encoder.encode('event: ping\ndata: {"type":"ping"}\n\n'),
  chat: encoder.encode(": keepalive\n\n"),
  responses: encoder.encode(": keepalive\n\n"),
};
