import { verifyThinking } from "../sign-thinking.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

/**
 * Like the real API, refuses thinking blocks the requested model did not produce: each
 * `thinking` block in an assistant turn must carry a signature that verifies for this model
 * and its text. `redacted_thinking` is opaque and accepted. Returns the error message or null.
 */
export function checkThinkingHistory(messages: readonly Record<string, unknown>[], model: string): string | null {
  for (const [i, message] of messages.entries()) {
    if (message.role !== "assistant" || !Array.isArray(message.content)) continue;
    for (const [j, block] of message.content.entries()) {
      if (!isJsonObject(block) || block.type !== "thinking") continue;
      const text = typeof block.thinking === "string" ? block.thinking : "";
      if (!verifyThinking(model, text, block.signature)) {
        return `messages.${i}.content.${j}: Invalid \`signature\` in \`thinking\` block`;
      }
    }
  }
  return null;
}
