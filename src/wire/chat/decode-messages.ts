import type { ContentPart, TextPart, ToolCallPart, ToolResultPart } from "../../canonical/content-part.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { CanonicalMessage } from "../../canonical/request.ts";
import { decodeContent } from "./decode-content.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { createDecodeOnce } from "../create-decode-once.ts";

/** Each message of a conversation sent again (frozen by the parse memo) is decoded once. */
const decodePartsOnce = createDecodeOnce<ContentPart[]>();
const decodeResultOnce = createDecodeOnce<ToolResultPart>();

export interface DecodedMessages {
  readonly system: TextPart[];
  readonly messages: CanonicalMessage[];
}

function decodeToolCalls(raw: unknown, path: string): ToolCallPart[] {
  if (raw === undefined || raw === null) return [];
  if (!Array.isArray(raw)) throw invalidRequest(`\`${path}\`: expected an array`, path);
  return raw.map((call, k): ToolCallPart => {
    const callPath = `${path}[${k}]`;
    if (!isJsonObject(call) || typeof call.id !== "string") throw invalidRequest(`\`${callPath}.id\`: field required`, `${callPath}.id`);
    if (call.type === "custom" && isJsonObject(call.custom) && typeof call.custom.name === "string") {
      // A custom tool's free-text input has no JSON form; wrapped so it survives as arguments.
      const input = typeof call.custom.input === "string" ? call.custom.input : "";
      return { type: "tool_call", id: call.id, name: call.custom.name, arguments: JSON.stringify({ input }) };
    }
    const fn = call.function;
    if (!isJsonObject(fn) || typeof fn.name !== "string") throw invalidRequest(`\`${callPath}.function.name\`: field required`, `${callPath}.function.name`);
    return { type: "tool_call", id: call.id, name: fn.name, arguments: typeof fn.arguments === "string" ? fn.arguments : "" };
  });
}

function decodeAssistant(message: Record<string, unknown>, path: string, warnings: string[]): ContentPart[] {
  const parts: ContentPart[] = [];
  // The `reasoning_content` extension the gateway itself shows Chat clients; it has no signature.
  if (typeof message.reasoning_content === "string" && message.reasoning_content !== "") {
    parts.push({ type: "thinking", text: message.reasoning_content });
  }
  parts.push(...decodeContent(message.content, `${path}.content`, false, warnings));
  if (typeof message.refusal === "string" && message.refusal !== "") parts.push({ type: "text", text: message.refusal });
  parts.push(...decodeToolCalls(message.tool_calls, `${path}.tool_calls`));
  const legacy = message.function_call;
  if (isJsonObject(legacy) && typeof legacy.name === "string") {
    // The deprecated single-call form has no id; the name pairs it with its `function` result.
    parts.push({ type: "tool_call", id: legacy.name, name: legacy.name, arguments: typeof legacy.arguments === "string" ? legacy.arguments : "" });
  }
  return parts;
}

function decodeToolResult(message: Record<string, unknown>, path: string, warnings: string[]): ToolResultPart {
  const callId = message.role === "function" ? message.name : message.tool_call_id;
  const field = message.role === "function" ? "name" : "tool_call_id";
  if (typeof callId !== "string") throw invalidRequest(`\`${path}.${field}\`: field required`, `${path}.${field}`);
  const content = decodeContent(message.content, `${path}.content`, false, warnings);
  // Chat has no error flag for tool results; errors arrive as text.
  return { type: "tool_result", callId, content, isError: false };
}

/**
 * A tool message's result decoded (and kept, when the message is shared). The closures live here,
 * not in the loop over messages: a message decoded before is looked up first and makes none (nor
 * the scope they would capture).
 */
function decodeToolResultOnce(message: JsonObject, path: string, warn: (warning: string) => void): ToolResultPart {
  return decodeResultOnce(message, (sink) => decodeToolResult(message, path, sink), warn);
}

/** A system, user or assistant message's parts decoded (and kept, when the message is shared); see decodeToolResultOnce. */
function decodePartsOf(message: JsonObject, path: string, role: "system" | "user" | "assistant", warn: (warning: string) => void): ContentPart[] {
  if (role === "assistant") return decodePartsOnce(message, (sink) => decodeAssistant(message, path, sink), warn);
  return decodePartsOnce(message, (sink) => decodeContent(message.content, `${path}.content`, role === "user", sink), warn);
}

/**
 * Chat `messages` → canonical system + messages. Leading system/developer messages become the
 * system prompt; later ones stay in place as `system` messages. Consecutive tool (and legacy
 * function) messages merge into one user message of tool results, as the other formats hold them.
 */
export function decodeMessages(raw: readonly unknown[], warnings: string[]): DecodedMessages {
  const warn = (warning: string): void => void warnings.push(warning);
  const system: TextPart[] = [];
  const messages: CanonicalMessage[] = [];
  let toolResults: ToolResultPart[] | null = null;
  for (const [i, message] of raw.entries()) {
    const path = `messages[${i}]`;
    if (!isJsonObject(message) || typeof message.role !== "string") throw invalidRequest(`\`${path}.role\`: field required`, `${path}.role`);
    const role = message.role;
    if (role === "tool" || role === "function") {
      const result = decodeResultOnce.known(message) ?? decodeToolResultOnce(message, path, warn);
      if (toolResults) toolResults.push(result);
      else {
        toolResults = [result];
        messages.push({ role: "user", content: toolResults });
      }
      continue;
    }
    toolResults = null;
    if (role === "system" || role === "developer") {
      const parts = (decodePartsOnce.known(message) ?? decodePartsOf(message, path, "system", warn)) as TextPart[];
      if (messages.length === 0) system.push(...parts);
      else messages.push({ role: "system", content: parts, ...(role === "developer" ? { developer: true } : {}) });
    } else if (role === "user") {
      messages.push({ role: "user", content: decodePartsOnce.known(message) ?? decodePartsOf(message, path, "user", warn) });
    } else if (role === "assistant") {
      messages.push({ role: "assistant", content: decodePartsOnce.known(message) ?? decodePartsOf(message, path, "assistant", warn) });
    } else {
      throw invalidRequest(`\`${path}.role\`: unsupported role '${role}'`, `${path}.role`);
    }
  }
  return { system, messages };
}
