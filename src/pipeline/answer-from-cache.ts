import type { WireFormat } from "../canonical/wire-format.ts";
import type { CachedAnswer } from "../cache/create-response-cache.ts";
import { replayResponseEvents } from "../cache/replay-response-events.ts";
import type { EncodeContext } from "../wire/client-format.ts";
import { wireApi } from "../wire/wire-apis.ts";

/**
 * A response-cache hit in the called format: the stored canonical answer encoded as JSON, or
 * replayed through the format's stream encoder when the new request asks for a stream.
 */
export function answerFromCache(format: WireFormat, hit: CachedAnswer, stream: boolean, tier: string, includeUsage: boolean, headers: Record<string, string>): Response {
  const { client } = wireApi(format);
  const context: EncodeContext = { model: tier, created: Math.floor(Date.now() / 1000), includeUsage };
  const all: Record<string, string> = { ...headers, ...hit.headers, ...pick(headers), "x-router-cache": "hit" };
  if (!stream) {
    all["content-type"] = "application/json";
    return new Response(JSON.stringify(client.encodeResponse(hit.response, context)), { status: 200, headers: all });
  }
  let state = client.stream.initial(context);
  const parts: string[] = [];
  for (const event of replayResponseEvents(hit.response)) state = client.stream.stepInto(state, event, parts);
  const text = parts.join("");
  all["content-type"] = "text/event-stream; charset=utf-8";
  all["cache-control"] = "no-cache";
  return new Response(text, { status: 200, headers: all });
}

/** This request's own ids and limit headers win over the stored answer's. */
function pick(headers: Record<string, string>): Record<string, string> {
  const own: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (name.endsWith("request-id") || name.startsWith("x-ratelimit-")) own[name] = value;
  }
  return own;
}
