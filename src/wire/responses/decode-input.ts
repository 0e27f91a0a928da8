import type { ContentPart, RedactedThinkingPart, TextPart, ThinkingPart } from "../../canonical/content-part.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { CanonicalMessage } from "../../canonical/request.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";
import { packResponsesReasoning, unpackForeignThinking } from "../pack-reasoning.ts";
import { createDecodeOnce } from "../create-decode-once.ts";
import { createKeptRuns } from "../create-kept-runs.ts";
import { readInputParts } from "./read-input-parts.ts";

export interface DecodedInput {
  readonly system: TextPart[];
  readonly messages: CanonicalMessage[];
}

type TurnRole = "user" | "assistant";

/** An input item's type; a message may leave it out. */
const typeOf = (item: JsonObject): unknown => item.type ?? (typeof item.role === "string" ? "message" : undefined);

/** The turn an input item joins: its role, or undefined for an item that is none (a system or developer message, an unknown type). */
function turnRoleOf(item: unknown): TurnRole | undefined {
  if (!isJsonObject(item)) return undefined;
  switch (typeOf(item)) {
    case "message":
      return item.role === "user" || item.role === "assistant" ? item.role : undefined;
    case "function_call":
    case "reasoning":
      return "assistant";
    case "function_call_output":
      return "user";
    default:
      return undefined;
  }
}

const isInstruction = (item: unknown): boolean => isJsonObject(item) && typeOf(item) === "message" && (item.role === "system" || item.role === "developer");

function readReasoning(item: JsonObject, at: string): ThinkingPart | RedactedThinkingPart {
  const encrypted = typeof item.encrypted_content === "string" ? item.encrypted_content : undefined;
  const foreign = unpackForeignThinking(encrypted);
  if (foreign !== null) return "redacted" in foreign ? { type: "redacted_thinking", data: foreign.redacted } : { type: "thinking", ...foreign };
  if (typeof item.id !== "string") throw invalidRequest(`${at}.id must be a string`, `${at}.id`);
  const summary = Array.isArray(item.summary) ? item.summary : [];
  const text = summary
    .map((part) => (isJsonObject(part) && typeof part.text === "string" ? part.text : ""))
    .filter((part) => part !== "")
    .join("\n\n");
  return { type: "thinking", text, signature: packResponsesReasoning({ id: item.id, ...(encrypted !== undefined ? { encryptedContent: encrypted } : {}) }) };
}

function stringField(item: JsonObject, key: string, at: string): string {
  const value = item[key];
  if (typeof value !== "string") throw invalidRequest(`${at}.${key} must be a string`, `${at}.${key}`);
  return value;
}

/** The canonical parts of a message, call, call output or reasoning item. */
function readItemParts(item: JsonObject, at: string, warnings: string[]): ContentPart[] {
  switch (typeOf(item)) {
    case "function_call":
      return [{ type: "tool_call", id: stringField(item, "call_id", at), name: stringField(item, "name", at), arguments: stringField(item, "arguments", at) }];
    case "function_call_output": {
      const content = readInputParts(item.output ?? "", `${at}.output`, warnings);
      return [{ type: "tool_result", callId: stringField(item, "call_id", at), content, isError: false }];
    }
    case "reasoning":
      return [readReasoning(item, at)];
    default:
      return readInputParts(item.content, `${at}.content`, warnings);
  }
}

/** The parts of each input item of a conversation sent again (frozen by the parse memo) are read once. */
const decodeItemOnce = createDecodeOnce<ContentPart[]>();

/** An item's parts, read (and kept, when the item is shared): the closure and its place's name are made only for an item not read before. */
function itemParts(item: JsonObject, index: number, warnings: string[]): ContentPart[] {
  const known = decodeItemOnce.known(item);
  if (known !== undefined) return known;
  const at = `input[${index}]`;
  return decodeItemOnce(item, (sink) => readItemParts(item, at, sink), (w) => void warnings.push(w));
}

/** Each turn of a conversation sent again, kept whole with the items it was read from. */
const keptTurns = createKeptRuns<CanonicalMessage>();

/** Whether `next` begins another message than `turn`: another role's turn, or a system or developer message. */
function endsTurn(next: unknown, turn: CanonicalMessage): boolean {
  const role = turnRoleOf(next);
  return role !== undefined ? role !== turn.role : isInstruction(next);
}

/** The consecutive items of one role being gathered into a turn; `items` while every one of them could be kept. */
interface Run {
  readonly role: TurnRole;
  readonly parts: ContentPart[];
  items: object[] | undefined;
}

/** Ends the run: its message joins the list (merged into the last one when that has its role, after an empty turn), kept when it can be. */
function closeRun(run: Run, messages: CanonicalMessage[]): void {
  if (run.parts.length === 0) return;
  const last = messages[messages.length - 1];
  if (last !== undefined && last.role === run.role) {
    messages[messages.length - 1] = { role: run.role, content: [...last.content, ...run.parts] };
    return;
  }
  const message: CanonicalMessage = { role: run.role, content: run.parts };
  messages.push(message);
  if (run.items !== undefined) {
    Object.freeze(run.parts);
    keptTurns.keep(run.items, Object.freeze(message));
  }
}

/** A system or developer message: leading ones join the system prompt, later ones keep their place. */
function addInstruction(item: JsonObject, index: number, decoded: DecodedInput, warnings: string[]): void {
  const parts = itemParts(item, index, warnings);
  const developer = item.role === "developer";
  const texts = parts.filter((part): part is TextPart => part.type === "text");
  if (texts.length < parts.length) warnings.push(`input[${index}]: only text is kept in ${developer ? "developer" : "system"} messages`);
  if (decoded.messages.length === 0) decoded.system.push(...texts);
  else if (texts.length > 0) decoded.messages.push({ role: "system", content: texts, ...(developer ? { developer: true } : {}) });
}

/**
 * Responses `input` items → canonical messages. Leading system and developer messages join the
 * system prompt, later ones keep their place; consecutive items of one role (a reasoning item, a
 * message and the calls that follow it; call outputs and the user's next message) merge into one
 * message, as the other formats hold them; an item of an unknown type is dropped with a warning.
 */
export function decodeInput(input: readonly unknown[], system: TextPart[], warnings: string[]): DecodedInput {
  const decoded: DecodedInput = { system, messages: [] };
  const { messages } = decoded;
  let run: Run | undefined;
  for (let i = 0; i < input.length; i++) {
    const item = input[i];
    // A turn sent before is taken whole where it begins a message again.
    const kept = typeof item === "object" && item !== null ? keptTurns.at(input, i, endsTurn) : undefined;
    if (kept !== undefined && kept.message.role !== run?.role) {
      if (run !== undefined) closeRun(run, messages);
      run = undefined;
      if (messages[messages.length - 1]?.role !== kept.message.role) {
        messages.push(kept.message);
        i += kept.items.length - 1;
        continue;
      }
    }
    const role = turnRoleOf(item);
    if (role === undefined) {
      if (!isJsonObject(item)) throw invalidRequest(`input[${i}] must be an object`, `input[${i}]`);
      if (typeOf(item) === "message") {
        if (!isInstruction(item)) {
          itemParts(item, i, warnings);
          throw invalidRequest(`input[${i}].role must be user, assistant, system or developer`, `input[${i}].role`);
        }
        if (run !== undefined) closeRun(run, messages);
        run = undefined;
        addInstruction(item, i, decoded, warnings);
      } else {
        warnings.push(`input[${i}]: input item type ${JSON.stringify(typeOf(item))} cannot be translated and was dropped`);
        if (run !== undefined) run.items = undefined;
      }
      continue;
    }
    const turnItem = item as JsonObject;
    if (run === undefined || run.role !== role) {
      if (run !== undefined) closeRun(run, messages);
      run = { role, parts: [], items: [] };
    }
    const parts = itemParts(turnItem, i, warnings);
    for (const part of parts) run.parts.push(part);
    if (run.items !== undefined && decodeItemOnce.known(turnItem) === parts) run.items.push(turnItem);
    else run.items = undefined;
  }
  if (run !== undefined) closeRun(run, messages);
  return decoded;
}
