/** `stream` and `stream_options` (with one adjoining comma) do not change what the model says. */
const STREAM_FIELDS = /,\s*"stream(?:_options)?"\s*:\s*(?:true|false|null|\{[^{}]*\})|"stream(?:_options)?"\s*:\s*(?:true|false|null|\{[^{}]*\})\s*,?/g;

/**
 * 64-bit hash of the raw request body: the same request always yields the same ids and text,
 * and a streamed call reads the same as its non-stream twin (what a gateway aggregating a
 * stream for a non-stream client must reproduce).
 */
export function hashSeed(raw: string): bigint {
  return BigInt.asUintN(64, BigInt(Bun.hash(raw.includes('"stream') ? raw.replace(STREAM_FIELDS, "") : raw)));
}
