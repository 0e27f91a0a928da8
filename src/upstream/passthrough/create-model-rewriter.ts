/**
 * Rewrites the upstream model id to the tier name in `"model":"…"` fields of a byte stream,
 * without decoding it. A raw `"model":"id"` sequence can only be JSON structure (inside a JSON
 * string the quotes would be escaped), so message content is never touched.
 */
export interface ModelRewriter {
  /** Rewrites a chunk; bytes after the last newline are held back so a field is never split. */
  push(chunk: Uint8Array): Buffer;
  /** What is still held back, rewritten. */
  flush(): Buffer;
  /** How many fields have been rewritten so far. */
  readonly rewritten: number;
}

const LF = 10;
const EMPTY = Buffer.alloc(0);

export function createModelRewriter(upstreamId: string, tier: string): ModelRewriter {
  const needles = [Buffer.from(`"model":"${upstreamId}"`), Buffer.from(`"model": "${upstreamId}"`)];
  const replacement = Buffer.from(`"model":"${tier}"`);
  let carry: Buffer = EMPTY;
  let rewritten = 0;

  const rewrite = (bytes: Buffer): Buffer => {
    let result = bytes;
    for (const needle of needles) {
      let at = result.indexOf(needle);
      if (at < 0) continue;
      const parts: Buffer[] = [];
      let from = 0;
      while (at >= 0) {
        parts.push(result.subarray(from, at), replacement);
        rewritten++;
        from = at + needle.length;
        at = result.indexOf(needle, from);
      }
      parts.push(result.subarray(from));
      result = Buffer.concat(parts);
    }
    return result;
  };

  return {
    push(chunk) {
      const bytes = carry.length === 0 ? Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength) : Buffer.concat([carry, chunk]);
      const cut = bytes.lastIndexOf(LF) + 1;
      carry = cut === bytes.length ? EMPTY : Buffer.from(bytes.subarray(cut));
      return cut === 0 ? EMPTY : rewrite(bytes.subarray(0, cut));
    },
    flush() {
      const rest = carry;
      carry = EMPTY;
      return rest.length === 0 ? EMPTY : rewrite(rest);
    },
    get rewritten() {
      return rewritten;
    },
  };
}
