import { compileBodyCheck } from "../formats/compile-body-check.ts";
import { estimateInputTokens } from "../formats/messages/estimate-input-tokens.ts";
import { CountTokensRequestSchema } from "../formats/messages/schema.ts";
import { resolveTier } from "../routing/resolve-tier.ts";
import { authenticateRequest } from "./authenticate-request.ts";
import type { GatewayDeps } from "./gateway-deps.ts";
import { newRequestId } from "./new-request-id.ts";
import { readJsonBody } from "./read-json-body.ts";
import { renderError } from "./render-error.ts";

const checkCountTokens = compileBodyCheck(CountTokensRequestSchema);

/**
 * POST /v1/messages/count_tokens. Auth, plan and tier rules apply as for a chat request; the answer
 * is a local estimate, flagged `estimated: true`. It never counts against token usage.
 */
export async function handleCountTokens(request: Request, deps: GatewayDeps): Promise<Response> {
  const requestId = newRequestId();
  try {
    const principal = await authenticateRequest(request.headers, deps.authenticator);
    const body = checkCountTokens(await readJsonBody(request, deps.config.bodyLimitBytes));
    const tier = resolveTier(body.model, principal);
    return new Response(JSON.stringify({ input_tokens: estimateInputTokens(body), estimated: true }), {
      headers: {
        "content-type": "application/json",
        "x-router-tier": tier,
        "x-router-request-id": requestId,
        "request-id": requestId,
      },
    });
  } catch (error) {
    return renderError(error, "messages", requestId);
  }
}
