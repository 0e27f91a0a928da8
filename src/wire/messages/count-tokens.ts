import type { TokenCount } from "../wire-api.ts";
import { pickCountFields } from "../pick-count-fields.ts";
import { encodeMessagesRequest } from "./encode-request.ts";

/** What `/v1/messages/count_tokens` takes besides `model`. */
const FIELDS = ["messages", "system", "tools", "tool_choice", "thinking", "output_config", "cache_control", "mcp_servers", "context_management"];

/** The Messages API's count endpoint. */
export const messagesTokenCount: TokenCount = {
  path: "/v1/messages/count_tokens",
  fromOwn: (body, upstreamModelId) => pickCountFields(body, FIELDS, upstreamModelId),
  fromCanonical: (request, model) => pickCountFields(encodeMessagesRequest(request, { upstreamModelId: model.upstreamId, model }).value, FIELDS, model.upstreamId),
};
