import { asBuffer } from "../as-buffer.ts";

/**
 * Rewrites the upstream model id to the tier name in `"model":"…"` fields of a byte stream,
 * without decoding it. A raw `"model":"id"` sequence can only be JSON structure (inside a JSON
 * string the quotes would be escaped), so message content is never touched.
 *
 * When the tier name is no longer than the upstream id, the field is overwritten in place and
 * padded with spaces after the value (insignificant JSON whitespace): no allocation, no copy.
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
const SPACE = 0x20;
const EMPTY = Buffer.alloc(0);

interface Needles {
  readonly compact: Buffer;
  readonly spaced: Buffer;
  readonly replacement: Buffer;
}

const needleCache = new Map<string, Needles>();

function needlesFor(upstreamId: string, tier: string): Needles {
  const key = `${upstreamId}\u0000${tier}`;
  let needles = needleCache.get(key);
  if (!needles) {
    needles = {
      compact: Buffer.from(`"model":"${upstreamId}"`),
      spaced: Buffer.from(`"model": "${upstreamId}"`),
      replacement: Buffer.from(`"model":"${tier}"`),
    };
    needleCache.set(key, needles);
  }
  return needles;
}

/** Replaces every `needle` in `bytes`; in place when the replacement fits. Returns the result and the count. */
function replaceAll(bytes: Buffer, needle: Buffer, replacement: Buffer): [Buffer, number] {
  let at = bytes.indexOf(needle);
  if (at < 0) return [bytes, 0];
  let count = 0;
  if (replacement.length <= needle.length) {
    while (at >= 0) {
      replacement.copy(bytes, at);
      bytes.fill(SPACE, at + replacement.length, at + needle.length);
      count++;
      at = bytes.indexOf(needle, at + needle.length);
    }
    return [bytes, count];
  }
  const parts: Buffer[] = [];
  let from = 0;
  while (at >= 0) {
    parts.push(bytes.subarray(from, at), replacement);
    count++;
    from = at + needle.length;
    at = bytes.indexOf(needle, from);
  }
  parts.push(bytes.subarray(from));
  return [Buffer.concat(parts), count];
}

/** Rewrites both spellings of the field in a buffer the caller owns. */
export function rewriteModel(bytes: Buffer, upstreamId: string, tier: string): [Buffer, number] {
  const needles = needlesFor(upstreamId, tier);
  const [once, compactCount] = replaceAll(bytes, needles.compact, needles.replacement);
  const [twice, spacedCount] = replaceAll(once, needles.spaced, needles.replacement);
  return [twice, compactCount + spacedCount];
}

export function createModelRewriter(upstreamId: string, tier: string): ModelRewriter {
  const needles = needlesFor(upstreamId, tier);
  let carry: Buffer = EMPTY;
  let rewritten = 0;
  // An upstream writes its JSON one way throughout: once a spelling has matched, only it is searched.
  let spelling: Buffer | undefined;
  const rewrite = (bytes: Buffer): Buffer => {
    if (spelling) {
      const [out, count] = replaceAll(bytes, spelling, needles.replacement);
      rewritten += count;
      return out;
    }
    const [compact, compactCount] = replaceAll(bytes, needles.compact, needles.replacement);
    const [out, spacedCount] = replaceAll(compact, needles.spaced, needles.replacement);
    if (compactCount > 0) spelling = needles.compact;
    else if (spacedCount > 0) spelling = needles.spaced;
    rewritten += compactCount + spacedCount;
    return out;
  };
  return {
    push(chunk) {
      const bytes = carry.length === 0 ? asBuffer(chunk) : Buffer.concat([carry, chunk]);
      const cut = bytes.lastIndexOf(LF) + 1;
      carry = cut === bytes.length ? EMPTY : Buffer.from(bytes.subarray(cut));
      return cut === 0 ? EMPTY : rewrite(cut === bytes.length ? bytes : bytes.subarray(0, cut));
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
