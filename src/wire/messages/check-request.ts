import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { JsonObject } from "../../canonical/json-object.ts";
import { compileBodyCheck } from "../compile-body-check.ts";
import { MessagesRequestSchema } from "./schema.ts";

type Message = { readonly role?: unknown; readonly content?: unknown } | null;

/** An assistant turn that ends in a server tool's call, after which the API lets a system message stand. */
function endsInServerToolUse(message: Message): boolean {
  const content = message?.content;
  return Array.isArray(content) && (content.at(-1) as { type?: unknown } | undefined)?.type === "server_tool_use";
}

/**
 * Why a `system` message at `at` is misplaced in Messages `messages`, by the API's rules for
 * mid-conversation system messages: never first (that is the top-level `system` parameter); right
 * after a user turn (or an assistant turn ending in a server tool's call); last, or followed by an
 * assistant turn. Null when it is where the API takes it (as Claude Code places it).
 */
function misplacedSystem(messages: readonly Message[], at: number): string | null {
  if (at === 0) return 'a "system" message cannot come first; put the system prompt in the top-level `system` parameter';
  const before = messages[at - 1];
  if (before?.role !== "user" && !(before?.role === "assistant" && endsInServerToolUse(before))) {
    return 'a "system" message must follow a user message';
  }
  const after = messages[at + 1];
  if (after !== undefined && after?.role !== "assistant") return 'a "system" message must be the last message or be followed by an assistant message';
  return null;
}

/**
 * What the Messages API refuses although it fits the wire schema, refused the same way before
 * anything is counted or called: an empty conversation, and a `system` message inside `messages`
 * where the API does not take one. Count-tokens bodies are held to the same rules.
 */
export function checkMessagesRules(body: Readonly<Record<string, unknown>>): void {
  const messages = body.messages;
  if (!Array.isArray(messages)) return;
  if (messages.length === 0) throw invalidRequest("`messages`: at least one message is required", "messages");
  const list = messages as readonly Message[];
  for (let at = 0; at < list.length; at++) {
    if (list[at]?.role !== "system") continue;
    const why = misplacedSystem(list, at);
    if (why) throw invalidRequest(`\`messages[${at}].role\`: ${why}`, `messages[${at}].role`);
  }
}

const checkBody = compileBodyCheck(MessagesRequestSchema, "messages");

/** A Messages request body checked against the schema, then the API's rules; throws a 400 naming the field. */
export function checkMessagesRequest(body: unknown): JsonObject {
  const checked = checkBody(body) as JsonObject;
  checkMessagesRules(checked);
  return checked;
}
