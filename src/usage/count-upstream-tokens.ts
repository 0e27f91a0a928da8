import type { ModelConfig } from "../config/schema.ts";
import { decodeMessagesRequest } from "../wire/messages/decode-request.ts";
import { buildForwardHeaders } from "../upstream/passthrough/build-forward-headers.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";
import { messagesApi } from "../wire/messages/api.ts";
import { responsesApi } from "../wire/responses/api.ts";
import { responsesAdapter } from "../wire/responses/upstream-side.ts";
import type { WireApi } from "../wire/wire-api.ts";
import type { JsonObject } from "../canonical/json-object.ts";

export interface UpstreamCountInput {
  /** The Messages count body as the client sent it. */
  readonly body: JsonObject;
  readonly model: ModelConfig;
  readonly provider: ResolvedProvider;
  readonly clientHeaders: Headers;
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

/** Fields each count endpoint accepts; anything else (a stray `max_tokens`, `stream`) is refused upstream. */
const MESSAGES_COUNT_FIELDS = ["messages", "system", "tools", "tool_choice", "thinking", "output_config", "cache_control", "mcp_servers", "context_management"];
const RESPONSES_COUNT_FIELDS = ["input", "instructions", "tools", "tool_choice", "parallel_tool_calls", "reasoning", "text", "truncation"];

function pick(source: JsonObject, fields: readonly string[], model: string): JsonObject {
  const out: JsonObject = { model };
  for (const field of fields) if (source[field] !== undefined) out[field] = source[field];
  return out;
}

/** The body and path for the model's preferred counting API; null when it speaks neither. */
function countRequest(input: UpstreamCountInput): { path: string; api: WireApi; body: JsonObject } | null {
  const { model, body } = input;
  if (model.apis.includes("messages")) {
    return { api: messagesApi, path: "/v1/messages/count_tokens", body: pick(body, MESSAGES_COUNT_FIELDS, model.upstreamId) };
  }
  if (model.apis.includes("responses")) {
    const canonical = decodeMessagesRequest(body).value;
    const encoded = responsesAdapter.encodeRequest(canonical, { upstreamModelId: model.upstreamId, model }).value;
    return { api: responsesApi, path: "/v1/responses/input_tokens", body: pick(encoded, RESPONSES_COUNT_FIELDS, model.upstreamId) };
  }
  return null;
}

/**
 * Asks the model's upstream to count a Messages request's input tokens: the Messages count
 * endpoint, or the Responses input-token endpoint with the request translated. null whenever it
 * cannot (no counting API, a translation it refuses, an error, a timeout): the caller estimates.
 */
export async function countUpstreamTokens(input: UpstreamCountInput): Promise<number | null> {
  let request: ReturnType<typeof countRequest>;
  try {
    request = countRequest(input);
  } catch {
    return null;
  }
  if (!request) return null;
  try {
    const response = await (input.fetch ?? fetch)(input.provider.baseUrl + request.path, {
      method: "POST",
      headers: buildForwardHeaders(request.api, input.clientHeaders, input.provider, false),
      body: JSON.stringify(request.body),
      signal: AbortSignal.timeout(input.timeoutMs),
    });
    if (!response.ok) {
      await response.body?.cancel();
      return null;
    }
    const answer = (await response.json()) as { input_tokens?: unknown };
    const tokens = answer.input_tokens;
    return typeof tokens === "number" && Number.isFinite(tokens) && tokens >= 0 ? tokens : null;
  } catch {
    return null;
  }
}
