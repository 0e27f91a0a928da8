import type { ContentPart } from "../canonical/content-part.ts";
import type { CanonicalMessage, CanonicalRequest } from "../canonical/request.ts";

export interface StripResult<T> {
  readonly value: T;
  readonly warnings: readonly string[];
  /**
   * Thinking was removed inside the agent loop still running (assistant messages after the newest
   * user text, the request ending in tool results). A Messages upstream with thinking on refuses
   * such a history ("a final assistant message must start with a thinking block"), so thinking
   * must be off (effort `off`) for this request there.
   */
  readonly thinkingMustBeOff: boolean;
}

/** A thinking or redacted-thinking part: signed by the model that wrote it. */
export const isThinking = (part: ContentPart): boolean => part.type === "thinking" || part.type === "redacted_thinking";

/**
 * Index of the first message of the agent loop still running: the one after the newest user
 * message holding text, when the request ends in tool results; otherwise past the end.
 */
function agentLoopStart(messages: readonly CanonicalMessage[]): number {
  const last = messages.at(-1);
  if (last?.role !== "user" || !last.content.some((part) => part.type === "tool_result")) return messages.length;
  for (let i = messages.length - 1; i >= 0; i--) {
    const message = messages[i]!;
    if (message.role === "user" && message.content.some((part) => part.type === "text")) return i + 1;
  }
  return 0;
}

/**
 * Removes thinking and redacted-thinking parts from the history when the model that will answer is
 * not the conversation's pinned model. Signatures are bound to the model that produced them and we
 * cannot tell who that was, so on a switch none of them may go to the new upstream ("invalid
 * signature"). A message left empty is dropped. On the pinned model itself, only the first
 * `foreignTurns` assistant turns are cleaned: they were answered before the conversation last
 * switched to it (see `ConversationPin.foreignTurns`). No pin (nothing says the history came from
 * another model: the client replays what it was answered) → the request itself.
 */
export function stripForeignThinking(
  request: CanonicalRequest,
  answeringModel: string,
  pinnedModel: string | null,
  foreignTurns = 0,
): StripResult<CanonicalRequest> {
  if (pinnedModel === null) return { value: request, warnings: [], thinkingMustBeOff: false };
  const limit = pinnedModel === answeringModel ? foreignTurns : Infinity;
  if (limit === 0) return { value: request, warnings: [], thinkingMustBeOff: false };
  let removed = 0;
  let assistants = 0;
  const loopStart = agentLoopStart(request.messages);
  let thinkingMustBeOff = false;
  const messages: CanonicalMessage[] = [];
  for (const [i, message] of request.messages.entries()) {
    const inScope = message.role === "assistant" ? assistants++ < limit : limit === Infinity;
    if (!inScope || !message.content.some(isThinking)) {
      messages.push(message);
      continue;
    }
    const content = message.content.filter((part) => !isThinking(part));
    removed += message.content.length - content.length;
    if (i >= loopStart) thinkingMustBeOff = true;
    if (content.length > 0) messages.push({ ...message, content });
  }
  if (removed === 0) return { value: request, warnings: [], thinkingMustBeOff: false };
  const from = limit === Infinity ? `produced by ${pinnedModel}` : `of turns answered before the switch to ${answeringModel}`;
  return {
    value: { ...request, messages },
    warnings: [`removed ${removed} thinking block(s) ${from} before sending to ${answeringModel}`],
    thinkingMustBeOff,
  };
}
