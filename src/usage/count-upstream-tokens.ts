import type { JsonObject } from "../canonical/json-object.ts";
import type { ModelConfig } from "../config/schema.ts";
import { buildForwardHeaders } from "../upstream/passthrough/build-forward-headers.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";
import type { WireApi } from "../wire/wire-api.ts";
import { wireApi } from "../wire/wire-apis.ts";

export interface UpstreamCountInput {
  /** The API of the count request (its endpoint's). */
  readonly clientApi: WireApi;
  /** The count body as the client sent it. */
  readonly body: JsonObject;
  readonly model: ModelConfig;
  readonly provider: ResolvedProvider;
  readonly clientHeaders: Headers;
  readonly timeoutMs: number;
  readonly fetch?: typeof fetch;
}

/**
 * The API to count on and its body: the request's own API where the model speaks it (the body as
 * sent, less what the endpoint refuses), else the first of the model's APIs that can count, the
 * request translated; null when none can.
 */
function countRequest(input: UpstreamCountInput): { path: string; api: WireApi; body: JsonObject } | null {
  const { clientApi, model, body } = input;
  const apis = model.apis.map(wireApi);
  if (clientApi.countTokens && apis.includes(clientApi)) {
    return { api: clientApi, path: clientApi.countTokens.path, body: clientApi.countTokens.fromOwn(body, model.upstreamId) };
  }
  const other = apis.find((api) => api.countTokens !== undefined);
  if (!other?.countTokens) return null;
  const canonical = clientApi.client.decodeRequest(body).value;
  return { api: other, path: other.countTokens.path, body: other.countTokens.fromCanonical(canonical, model) };
}

/**
 * Asks the model's upstream to count a request's input tokens: on the request's own API's count
 * endpoint, or on another's with the request translated. null whenever it
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
