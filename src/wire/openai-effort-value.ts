import type { Effort } from "../canonical/effort.ts";

/** Gateway effort → OpenAI `reasoning_effort` value, the same in Chat and Responses. */
export function openAIEffortValue(effort: Effort): string {
  return effort === "off" ? "none" : effort;
}
