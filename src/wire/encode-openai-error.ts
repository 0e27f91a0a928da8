import type { GatewayError } from "../canonical/gateway-error.ts";

/** OpenAI-style error body, shared by Chat Completions and Responses: `{error: {message, type, param, code}}`. */
export function encodeOpenAIError(error: GatewayError): string {
  return JSON.stringify({ error: { message: error.message, type: error.type, param: error.param, code: error.code } });
}
