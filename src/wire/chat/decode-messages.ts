import type { ContentPart, TextPart, ToolCallPart, ToolResultPart } from "../../canonical/content-part.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { CanonicalMessage } from "../../canonical/request.ts";
import { decodeContent } from "./decode-content.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { createDecodeOnce } from "../create-decode-once.ts";
import { createKeptRuns } from "../create-kept-runs.ts";

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

/** A user or assistant message whose parts were kept, kept whole and frozen beside it: a conversation sent again costs a lookup a message. */
const keptMessages = new WeakMap<object, CanonicalMessage>();
/** Each run of tool messages of a conversation sent again: one user message of their results, kept whole with them. */
const keptResults = createKeptRuns<CanonicalMessage>();

const isToolMessage = (message: unknown): boolean => isJsonObject(message) && (message.role === "tool" || message.role === "function");
const endsResults = (next: unknown): boolean => !isToolMessage(next);

/** The tool messages being gathered into one user message; `items` while every one of them could be kept. */
interface ResultsRun {
  readonly message: CanonicalMessage;
  readonly results: ToolResultPart[];
  items: object[] | undefined;
}

/** Ends a run of tool messages: its one user message is kept when every one of them could be. */
function closeResults(run: ResultsRun | null): void {
  if (run?.items === undefined) return;
  Object.freeze(run.results);
  keptResults.keep(run.items, Object.freeze(run.message));
}

/**
 * Chat `messages` → canonical system + messages. Leading system/developer messages become the
 * system prompt; later ones stay in place as `system` messages. Consecutive tool (and legacy
 * function) messages merge into one user message of tool results, as the other formats hold them.
 * A message's place (`messages[3]`) is named only where an error or a warning may need it.
 */
export function decodeMessages(raw: readonly unknown[], warnings: string[]): DecodedMessages {
  const warn = (warning: string): void => void warnings.push(warning);
  const system: TextPart[] = [];
  const messages: CanonicalMessage[] = [];
  let run: ResultsRun | null = null;
  for (let i = 0; i < raw.length; i++) {
    const message = raw[i];
    const kept = typeof message === "object" && message !== null ? keptMessages.get(message) : undefined;
    if (kept !== undefined) {
      closeResults(run);
      run = null;
      messages.push(kept);
      continue;
    }
    if (!isJsonObject(message) || typeof message.role !== "string") throw invalidRequest(`\`messages[${i}].role\`: field required`, `messages[${i}].role`);
    const role = message.role;
    if (role === "tool" || role === "function") {
      if (run === null) {
        const results = keptResults.at(raw, i, endsResults);
        if (results !== undefined) {
          messages.push(results.message);
          i += results.items.length - 1;
          continue;
        }
        const parts: ToolResultPart[] = [];
        run = { message: { role: "user", content: parts }, results: parts, items: [] };
        messages.push(run.message);
      }
      const result = decodeResultOnce.known(message) ?? decodeToolResultOnce(message, `messages[${i}]`, warn);
      run.results.push(result);
      if (run.items !== undefined && decodeResultOnce.known(message) === result) run.items.push(message);
      else run.items = undefined;
      continue;
    }
    closeResults(run);
    run = null;
    if (role === "system" || role === "developer") {
      const parts = (decodePartsOnce.known(message) ?? decodePartsOf(message, `messages[${i}]`, "system", warn)) as TextPart[];
      if (messages.length === 0) system.push(...parts);
      else messages.push({ role: "system", content: parts, ...(role === "developer" ? { developer: true } : {}) });
    } else if (role === "user" || role === "assistant") {
      const content = decodePartsOnce.known(message) ?? decodePartsOf(message, `messages[${i}]`, role, warn);
      const decoded: CanonicalMessage = { role, content };
      messages.push(decoded);
      if (decodePartsOnce.known(message) === content) keptMessages.set(message, Object.freeze(decoded));
    } else {
      throw invalidRequest(`\`messages[${i}].role\`: unsupported role '${role}'`, `messages[${i}].role`);
    }
  }
  closeResults(run);
  return { system, messages };
}
