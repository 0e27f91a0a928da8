import type { ContentPart, DocumentPart, ImagePart, TextPart, ToolCallPart } from "../../canonical/content-part.ts";
import type { CanonicalMessage } from "../../canonical/request.ts";
import { encodeToolResult, encodeUserParts, type PartContext } from "./encode-parts.ts";
import type { JsonObject } from "../../canonical/json-object.ts";

/** Longest tool-call id the Chat API takes back in history (observed 400 above it). */
const MAX_CALL_ID = 40;

/** Ids over the limit are shortened deterministically, so a call and its result still match. */
function fitCallId(id: string, ctx: PartContext): string {
  if (id.length <= MAX_CALL_ID) return id;
  ctx.warn("tool call ids longer than 40 characters shortened for Chat Completions");
  const hash = Bun.hash(id).toString(16).padStart(16, "0");
  return `${id.slice(0, MAX_CALL_ID - 17)}_${hash}`;
}

const textOf = (parts: readonly TextPart[]): string => parts.map((p) => p.text).join("\n\n");

function encodeUser(content: readonly ContentPart[], ctx: PartContext): JsonObject[] {
  const out: JsonObject[] = [];
  const user: (TextPart | ImagePart | DocumentPart)[] = [];
  for (const part of content) {
    if (part.type === "tool_result") {
      const { text, media } = encodeToolResult(part, ctx);
      out.push({ role: "tool", tool_call_id: fitCallId(part.callId, ctx), content: text });
      if (media.length > 0) user.push({ type: "text", text: `Attachments of tool result ${part.callId}:` }, ...media);
    } else if (part.type === "text" || part.type === "image" || part.type === "document") {
      user.push(part);
    } else {
      ctx.warn(`${part.type} part in a user message dropped: Chat user messages cannot hold it`);
    }
  }
  // Tool messages come first: Chat wants every call answered before the next user turn.
  if (user.length > 0) out.push({ role: "user", content: encodeUserParts(user, ctx) });
  return out;
}

function encodeAssistant(content: readonly ContentPart[], ctx: PartContext): JsonObject | null {
  const texts: JsonObject[] = [];
  const calls: ToolCallPart[] = [];
  for (const part of content) {
    if (part.type === "text") texts.push({ type: "text", text: part.text });
    else if (part.type === "tool_call") calls.push(part);
    else if (part.type === "thinking" || part.type === "redacted_thinking") {
      ctx.warn("thinking in the history dropped: Chat Completions has no place for it");
    } else ctx.warn(`${part.type} part in an assistant message dropped: Chat assistant messages cannot hold it`);
  }
  if (texts.length === 0 && calls.length === 0) return null;
  const message: JsonObject = { role: "assistant", content: texts.length === 0 ? null : texts.length === 1 ? texts[0]!.text : texts };
  if (calls.length > 0) {
    message.tool_calls = calls.map((call) => ({
      id: fitCallId(call.id, ctx),
      type: "function",
      function: { name: call.name, arguments: call.arguments === "" ? "{}" : call.arguments },
    }));
  }
  return message;
}

/** Canonical system prompt and history → Chat `messages`. */
export function encodeMessages(system: readonly TextPart[], messages: readonly CanonicalMessage[], ctx: PartContext): JsonObject[] {
  const out: JsonObject[] = [];
  if (system.length > 0) out.push({ role: "system", content: textOf(system) });
  for (const message of messages) {
    if (message.role === "system") {
      // `system` is accepted by every Chat server; OpenAI reads it as `developer` on reasoning models.
      const text = textOf(message.content.filter((p): p is TextPart => p.type === "text"));
      if (message.content.some((p) => p.type !== "text")) ctx.warn("non-text parts of a system message dropped");
      out.push({ role: "system", content: text });
    } else if (message.role === "user") {
      out.push(...encodeUser(message.content, ctx));
    } else {
      const assistant = encodeAssistant(message.content, ctx);
      if (assistant) out.push(assistant);
    }
  }
  return out;
}
