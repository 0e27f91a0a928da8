import type { WireFormat } from "../canonical/wire-format.ts";
import { chatApi } from "./chat/api.ts";
import { messagesApi } from "./messages/api.ts";
import { responsesApi } from "./responses/api.ts";
import type { WireApi } from "./wire-api.ts";

const WIRE_APIS: Readonly<Record<WireFormat, WireApi>> = { messages: messagesApi, chat: chatApi, responses: responsesApi };

/** The API of that name: the one place a name becomes the knowledge behind it. */
export function wireApi(name: WireFormat): WireApi {
  return WIRE_APIS[name];
}
