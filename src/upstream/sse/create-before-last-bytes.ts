import type { StreamTokens } from "../../canonical/stream-tokens.ts";

/** Called just before a stream's last bytes go out; a promise when the caller must wait for it. */
export type BeforeLastBytes = (ended?: StreamTokens) => void | Promise<void>;

/**
 * A stream's `beforeLastBytes` (what it holds, such as its concurrency slot, freed before the
 * client has its last byte), called once whatever ends the stream, its failure swallowed. It
 * answers with a promise only when `callback` did (a shared limiter's release), for a normal end to
 * await then alone (a rare failure path may await it plainly): an `await` of a plain value still
 * yields, and a yield before a stream's first write lets the server send the response's head on
 * its own. On the bench's translated stream row (the whole answer in one read) that was a send of
 * its own a request: 3 sendto calls against 2.
 */
export function createBeforeLastBytes(callback: BeforeLastBytes | undefined): BeforeLastBytes {
  let called = false;
  return (ended) => {
    if (called) return;
    called = true;
    const pending = callback?.(ended);
    return pending ? pending.catch(() => {}) : undefined;
  };
}
