import type { WireFormat } from "../canonical/wire-format.ts";
import { chatFormat } from "./chat/chat-format.ts";
import type { ClientFormat } from "./client-format.ts";
import { messagesFormat } from "./messages/messages-format.ts";
import { responsesFormat } from "./responses/responses-format.ts";

export const CLIENT_FORMATS: Readonly<Record<WireFormat, ClientFormat>> = {
  messages: messagesFormat as ClientFormat,
  chat: chatFormat as ClientFormat,
  responses: responsesFormat as ClientFormat,
};
