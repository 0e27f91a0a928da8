import type { CanonicalRequest } from "../canonical/request.ts";
import type { Tier } from "../canonical/tier.ts";
import { boundText } from "./extract-task-signals.ts";
import { hashKey } from "./hash-key.ts";

/**
 * How much of the system text and first message identifies a conversation: head and tail plus the
 * length. Hashing whole 100 KB prompts on every request would eat the warm-path budget, and two
 * conversations equal in all of that are, for pinning, the same conversation.
 */
const KEY_TEXT_CHARS = 8_192;
const keyText = (text: string) => `${text.length}:${boundText(text, KEY_TEXT_CHARS)}`;

/** Part of a system prompt that changes on every request of a session and must not split it. */
const VOLATILE_SYSTEM = /^x-anthropic-billing-header:/;

function firstUserText(request: CanonicalRequest): string {
  for (const message of request.messages) {
    if (message.role !== "user") continue;
    const texts: string[] = [];
    for (const part of message.content) if (part.type === "text") texts.push(part.text);
    if (texts.length > 0) return texts.join("\n");
  }
  return "";
}

/**
 * The conversation a request belongs to: account, tier, system text and first user message,
 * refined by a client session id. A Responses request continuing `previous_response_id` holds
 * only the new turn, so its key is the key of that response (see `responseConversationKey`).
 */
export function conversationKey(accountId: string, tier: Tier, request: CanonicalRequest, sessionId: string | undefined): string {
  if (request.previousResponseId) return responseConversationKey(accountId, tier, request.previousResponseId);
  let system = "";
  let first = true;
  for (const part of request.system) {
    if (VOLATILE_SYSTEM.test(part.text)) continue;
    system = first ? part.text : `${system}\n${part.text}`;
    first = false;
  }
  return hashKey(["conv", accountId, tier, keyText(system), keyText(firstUserText(request)), sessionId ?? ""]);
}

/** The key under which a response's conversation is found by a later `previous_response_id`. */
export function responseConversationKey(accountId: string, tier: Tier, responseId: string): string {
  return hashKey(["resp", accountId, tier, responseId]);
}
