import type { CanonicalResponse } from "../canonical/response.ts";
import type { Usage } from "../canonical/usage.ts";
import type { WireFormat } from "../canonical/wire-format.ts";

/**
 * An answer as it was passed through to the client, kept undecoded until a hit needs it: most
 * answers are never asked for again, and decoding a stream on every miss cost more than the rest
 * of the cache's work on that request. The bytes are the ones sent, held as they are (no copy).
 */
export interface RawAnswer {
  readonly kind: "json" | "stream";
  /** The wire format of `bytes`. */
  readonly api: WireFormat;
  /** The JSON body, or every SSE chunk sent, in order. */
  readonly bytes: readonly Uint8Array[];
  /** Usage the bytes do not show (a Chat usage chunk the client did not ask for was taken out). */
  readonly usage?: Usage;
}

/** The complete answer in `raw`, or null when it is not one (a cut stream, a malformed body). */
export type DecodeRawAnswer = (raw: RawAnswer) => CanonicalResponse | null;
