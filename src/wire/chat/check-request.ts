import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { JsonObject } from "../../canonical/json-object.ts";
import { compileBodyCheck } from "../compile-body-check.ts";
import { ChatRequestSchema } from "./schema.ts";

/** What the Chat API refuses although it fits the wire schema: an empty conversation. */
export function checkChatRules(body: Readonly<Record<string, unknown>>): void {
  const messages = body.messages;
  if (Array.isArray(messages) && messages.length === 0) throw invalidRequest("`messages`: at least one message is required", "messages");
}

const checkBody = compileBodyCheck(ChatRequestSchema, "messages");

/** A Chat request body checked against the schema, then the API's rules; throws a 400 naming the field. */
export function checkChatRequest(body: unknown): JsonObject {
  const checked = checkBody(body) as JsonObject;
  checkChatRules(checked);
  return checked;
}
