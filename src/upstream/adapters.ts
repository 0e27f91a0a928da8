import type { WireFormat } from "../canonical/wire-format.ts";
import { chatAdapter } from "./chat/chat-adapter.ts";
import { messagesAdapter } from "./messages/messages-adapter.ts";
import { responsesAdapter } from "./responses/responses-adapter.ts";
import type { UpstreamAdapter } from "./types.ts";

export const UPSTREAM_ADAPTERS: Readonly<Record<WireFormat, UpstreamAdapter>> = {
  messages: messagesAdapter as UpstreamAdapter,
  chat: chatAdapter as UpstreamAdapter,
  responses: responsesAdapter as UpstreamAdapter,
};
