/**
 * The most of one streamed answer held for the response cache (and the Responses history): bytes
 * of the stream as sent on the same-format path, characters of its text on the translating path.
 * Past it the stream is no longer kept, so a stream holds bounded memory however long it runs; an
 * answer that big would not fit a shard of either store (64 MiB over 16 shards) anyway.
 */
export const STREAM_KEEP_LIMIT = 4 * 1024 * 1024;
