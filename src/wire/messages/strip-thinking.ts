import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/**
 * The same-format fast path of a model switch: the raw request body, parsed once, is cleaned
 * without going through the canonical model. The body itself comes back when nothing changed.
 */

const isThinkingBlock = (block: unknown) => isJsonObject(block) && (block.type === "thinking" || block.type === "redacted_thinking");

const hasBlock = (message: unknown, type: string) =>
  isJsonObject(message) && Array.isArray(message.content) && message.content.some((block) => isJsonObject(block) && block.type === type);

/** First message of the agent loop still running (see stripForeignThinking); past the end when none runs. */
function agentLoopStart(messages: readonly unknown[]): number {
  const last = messages.at(-1);
  if (!isJsonObject(last) || last.role !== "user" || !hasBlock(last, "tool_result")) return messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i];
    if (isJsonObject(message) && message.role === "user" && (typeof message.content === "string" || hasBlock(message, "text"))) return i + 1;
  }
  return 0;
}

/**
 * Messages body: drops `thinking`/`redacted_thinking` blocks from assistant messages (and messages
 * left empty), from the first `assistantTurns` of them only when given. `thinkingMustBeOff`: some
 * were in the running agent loop, so send thinking disabled.
 */
export function stripMessagesThinking(body: JsonObject, assistantTurns = Infinity): { value: JsonObject; removed: number; thinkingMustBeOff: boolean } {
  if (!Array.isArray(body.messages)) return { value: body, removed: 0, thinkingMustBeOff: false };
  let removed = 0;
  let assistants = 0;
  let thinkingMustBeOff = false;
  const loopStart = agentLoopStart(body.messages);
  const messages: unknown[] = [];
  for (const [i, message] of body.messages.entries()) {
    const isAssistant = isJsonObject(message) && message.role === "assistant";
    if (!isAssistant || assistants++ >= assistantTurns || !Array.isArray(message.content) || !message.content.some(isThinkingBlock)) {
      messages.push(message);
      continue;
    }
    const content = message.content.filter((block) => !isThinkingBlock(block));
    removed += message.content.length - content.length;
    if (i >= loopStart) thinkingMustBeOff = true;
    if (content.length > 0) messages.push({ ...message, content });
  }
  return removed === 0 ? { value: body, removed, thinkingMustBeOff } : { value: { ...body, messages }, removed, thinkingMustBeOff };
}
