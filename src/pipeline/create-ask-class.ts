import type { CanonicalRequest } from "../canonical/request.ts";
import type { Config } from "../config/schema.ts";
import type { AskClass } from "../routing/classify-with-llm.ts";
import { wireApi } from "../wire/wire-apis.ts";
import { buildForwardHeaders } from "../upstream/passthrough/build-forward-headers.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";

const NO_HEADERS = new Headers();

/**
 * The `llm` classifier's port: one short non-stream call to the fast tier's first model, thinking
 * off, aborted at the deadline. Any failure resolves null and the rules decide.
 */
export function createAskClass(current: () => { readonly config: Config; readonly providers: Readonly<Record<string, ResolvedProvider>> }): AskClass {
  return async (prompt, deadlineMs) => {
    const { config, providers } = current();
    const name = config.tiers.fast.models[0];
    const model = name ? config.models[name] : undefined;
    const provider = model ? providers[model.provider] : undefined;
    if (!model || !provider) return null;
    const api = wireApi(model.apis[0]!);
    const adapter = api.upstream;
    const request: CanonicalRequest = {
      system: [],
      messages: [{ role: "user", content: [{ type: "text", text: prompt }] }],
      tools: [],
      maxOutputTokens: 16,
      sampling: {},
      stop: [],
      stream: false,
      extra: {},
    };
    const body = adapter.encodeRequest(request, { upstreamModelId: model.upstreamId, model }).value;
    api.setEffort(body, "off", model);
    try {
      const response = await fetch(provider.baseUrl + api.path, {
        method: "POST",
        headers: buildForwardHeaders(api, NO_HEADERS, provider, false),
        body: JSON.stringify(body),
        signal: AbortSignal.timeout(deadlineMs),
      });
      if (!response.ok) return null;
      const answer = adapter.decodeResponse(await response.json()).value;
      return answer.content.map((part) => (part.type === "text" ? part.text : "")).join("");
    } catch {
      return null;
    }
  };
}
