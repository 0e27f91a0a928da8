import type { JsonObject } from "../../canonical/json-object.ts";

/** `message_start` and pings open a Messages stream without content. */
export const messagesOpensStream = (event: JsonObject): boolean => event.type === "message_start" || event.type === "ping";
