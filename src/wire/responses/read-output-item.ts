import type { OutputPart, ThinkingPart } from "../../canonical/content-part.ts";
import { droppedWarning } from "../../canonical/dropped-content.ts";
import { packResponsesReasoning } from "../pack-reasoning.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** The summary texts of a reasoning item, joined as the canonical thinking text. */
export function reasoningText(item: JsonObject): string {
  const summary = Array.isArray(item.summary) ? item.summary : [];
  return summary
    .map((part) => (isJsonObject(part) && typeof part.text === "string" ? part.text : ""))
    .filter((text) => text !== "")
    .join("\n\n");
}

/** The canonical signature of a reasoning item: its id and encrypted content, packed. */
export function reasoningSignature(item: JsonObject): string {
  const id = typeof item.id === "string" ? item.id : "";
  const encrypted = typeof item.encrypted_content === "string" ? { encryptedContent: item.encrypted_content } : {};
  return packResponsesReasoning({ id, ...encrypted });
}

export function reasoningPart(item: JsonObject): ThinkingPart {
  return { type: "thinking", text: reasoningText(item), signature: reasoningSignature(item) };
}

export interface ReadItem {
  readonly parts: readonly OutputPart[];
  readonly refusal: boolean;
}

/** One output item of a Responses answer as canonical parts; item types with no canonical form are reported. */
export function readOutputItem(item: unknown, warnings: string[]): ReadItem {
  if (!isJsonObject(item)) return { parts: [], refusal: false };
  switch (item.type) {
    case "reasoning":
      return { parts: [reasoningPart(item)], refusal: false };
    case "function_call":
      return {
        parts: [
          {
            type: "tool_call",
            id: typeof item.call_id === "string" ? item.call_id : String(item.id ?? ""),
            name: typeof item.name === "string" ? item.name : "",
            arguments: typeof item.arguments === "string" ? item.arguments : "",
          },
        ],
        refusal: false,
      };
    case "message": {
      const parts: OutputPart[] = [];
      let refusal = false;
      for (const part of Array.isArray(item.content) ? item.content : []) {
        if (!isJsonObject(part)) continue;
        if (part.type === "output_text" && typeof part.text === "string") parts.push({ type: "text", text: part.text });
        else if (part.type === "refusal" && typeof part.refusal === "string") {
          parts.push({ type: "text", text: part.refusal });
          refusal = true;
        }
      }
      return { parts, refusal };
    }
    default:
      warnings.push(droppedWarning(String(item.type)));
      return { parts: [], refusal: false };
  }
}
