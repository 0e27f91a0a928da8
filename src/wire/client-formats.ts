import type { WireFormat } from "../canonical/wire-format.ts";
import { chatFormat } from "./chat/client-side.ts";
import type { ClientFormat } from "./client-format.ts";
import { messagesFormat } from "./messages/client-side.ts";
import { responsesFormat } from "./responses/client-side.ts";

export const CLIENT_FORMATS: Readonly<Record<WireFormat, ClientFormat>> = {
  messages: messagesFormat as ClientFormat,
  chat: chatFormat as ClientFormat,
  responses: responsesFormat as ClientFormat,
};
