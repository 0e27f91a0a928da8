import type { WireFormat } from "../canonical/wire-format.ts";
import { chatAdapter } from "./chat/upstream-side.ts";
import { messagesAdapter } from "./messages/upstream-side.ts";
import { responsesAdapter } from "./responses/upstream-side.ts";
import type { UpstreamAdapter } from "./upstream-adapter.ts";

export const UPSTREAM_ADAPTERS: Readonly<Record<WireFormat, UpstreamAdapter>> = {
  messages: messagesAdapter as UpstreamAdapter,
  chat: chatAdapter as UpstreamAdapter,
  responses: responsesAdapter as UpstreamAdapter,
};
