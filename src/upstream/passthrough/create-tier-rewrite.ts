import type { WireApi } from "../../wire/wire-api.ts";
import { createModelRewriter } from "./create-model-rewriter.ts";

/**
 * `model` shown as the tier in a stream passed through, whole events at a time (so the rewriter
 * never holds bytes back). Where the API names the model once (Messages' `message_start`), the
 * bytes after the first field rewritten pass untouched, without a search.
 */
export function createTierRewrite(api: WireApi, upstreamModelId: string, tier: string): (bytes: Buffer) => Buffer {
  if (upstreamModelId === tier) return (bytes) => bytes;
  const rewriter = createModelRewriter(upstreamModelId, tier);
  let done = false;
  return (bytes) => {
    if (done || bytes.length === 0) return bytes;
    const out = rewriter.push(bytes);
    const rest = rewriter.flush();
    if (!api.modelInEveryEvent && rewriter.rewritten > 0) done = true;
    return rest.length === 0 ? out : out.length === 0 ? rest : Buffer.concat([out, rest]);
  };
}
