import { retryHeaders } from "./retry-headers.ts";

interface OpenAIErrorFields {
  type: string;
  code: string | null;
  message: string;
}

function fieldsFor(status: number): OpenAIErrorFields {
  if (status === 401) return { type: "invalid_request_error", code: "invalid_api_key", message: "Incorrect API key provided." };
  if (status === 404) return { type: "invalid_request_error", code: "not_found", message: "Not found." };
  if (status === 429) return { type: "requests", code: "rate_limit_exceeded", message: "Rate limit reached (simulated)." };
  if (status === 503) return { type: "service_unavailable_error", code: "server_is_overloaded", message: "The server is overloaded." };
  if (status >= 500) return { type: "server_error", code: "server_error", message: "The server had an error while processing your request." };
  return { type: "invalid_request_error", code: null, message: "Invalid request." };
}

/** An error response in the OpenAI shape: `{error:{message,type,param,code}}`. */
export function openaiError(
  status: number,
  message: string | undefined,
  requestId: string,
  options: { param?: string | null; code?: string | null } = {},
): Response {
  const fields = fieldsFor(status);
  const body = {
    error: {
      message: message ?? fields.message,
      type: fields.type,
      param: options.param ?? null,
      code: options.code !== undefined ? options.code : fields.code,
    },
  };
  return new Response(JSON.stringify(body), {
    status,
    headers: { "content-type": "application/json", "x-request-id": requestId, ...retryHeaders(status) },
  });
}
