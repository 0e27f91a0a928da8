import type { CanonicalMessage } from "../../canonical/request.ts";
import type { ContentPart, DocumentPart, ImagePart, MediaSource, ThinkingPart, ToolResultPart } from "../../canonical/content-part.ts";
import { unpackResponsesReasoning } from "../pack-reasoning.ts";
import type { JsonObject } from "../../canonical/json-object.ts";

const dataUrl = (mediaType: string, data: string): string => `data:${mediaType};base64,${data}`;

function imagePart(part: ImagePart): JsonObject {
  const detail = part.detail ?? "auto";
  const source: MediaSource = part.source;
  if (source.kind === "file") return { type: "input_image", file_id: source.fileId, detail };
  return { type: "input_image", image_url: source.kind === "url" ? source.url : dataUrl(source.mediaType, source.data), detail };
}

function documentPart(part: DocumentPart): JsonObject {
  const filename = part.filename ?? part.title;
  const named = filename !== undefined ? { filename } : {};
  const source = part.source;
  switch (source.kind) {
    case "base64":
      return { type: "input_file", file_data: dataUrl(source.mediaType, source.data), filename: filename ?? "document.pdf" };
    case "url":
      return { type: "input_file", file_url: source.url, ...named };
    case "file":
      return { type: "input_file", file_id: source.fileId, ...named };
    case "text":
      return { type: "input_text", text: part.title !== undefined ? `${part.title}\n\n${source.text}` : source.text };
    default: {
      const unreachable: never = source;
      return unreachable;
    }
  }
}

/** Text, image and document parts as Responses input content parts; anything else is reported. */
function inputContent(parts: readonly ContentPart[], at: string, warnings: string[]): JsonObject[] {
  const content: JsonObject[] = [];
  for (const part of parts) {
    if (part.type === "text") {
      if (part.text !== "") content.push({ type: "input_text", text: part.text });
    } else if (part.type === "image") content.push(imagePart(part));
    else if (part.type === "document") content.push(documentPart(part));
    else warnings.push(`${at}: a ${part.type} part cannot go in a Responses message and was dropped`);
  }
  return content;
}

/** A tool result as a `function_call_output`; Responses has no error flag, so an error says so in its text. */
function toolOutput(part: ToolResultPart, at: string, warnings: string[]): JsonObject {
  const content = inputContent(part.content, at, warnings);
  if (part.isError) {
    const first = content[0];
    if (first !== undefined && first.type === "input_text") content[0] = { ...first, text: `Error: ${String(first.text)}` };
    else content.unshift({ type: "input_text", text: "Error" });
  }
  const textOnly = content.every((item) => item.type === "input_text");
  const output = textOnly ? content.map((item) => String(item.text)).join("\n") : content;
  return { type: "function_call_output", call_id: part.callId, output };
}

function reasoningItem(part: ThinkingPart, at: string, warnings: string[]): JsonObject | null {
  const ref = unpackResponsesReasoning(part.signature);
  if (ref === null) {
    warnings.push(`${at}: thinking from another API cannot be sent to a Responses upstream and was dropped`);
    return null;
  }
  const item: JsonObject = { type: "reasoning", id: ref.id, summary: part.text === "" ? [] : [{ type: "summary_text", text: part.text }] };
  if (ref.encryptedContent !== undefined) item.encrypted_content = ref.encryptedContent;
  return item;
}

function userItems(message: CanonicalMessage, at: string, warnings: string[]): JsonObject[] {
  const items: JsonObject[] = [];
  const rest: ContentPart[] = [];
  for (const part of message.content) {
    if (part.type === "tool_result") items.push(toolOutput(part, at, warnings));
    else rest.push(part);
  }
  const content = inputContent(rest, at, warnings);
  if (content.length > 0) items.push({ type: "message", role: "user", content });
  return items;
}

/** Assistant parts in order: runs of text become one message item, calls and reasoning their own items. */
function assistantItems(message: CanonicalMessage, at: string, warnings: string[]): JsonObject[] {
  const items: JsonObject[] = [];
  let text: JsonObject[] = [];
  const flush = (): void => {
    if (text.length > 0) items.push({ type: "message", role: "assistant", content: text });
    text = [];
  };
  for (const part of message.content) {
    if (part.type === "text") {
      if (part.text !== "") text.push({ type: "output_text", text: part.text, annotations: [] });
      continue;
    }
    flush();
    if (part.type === "tool_call") {
      // A call with no arguments streamed has "" here; Responses expects a JSON text.
      items.push({ type: "function_call", call_id: part.id, name: part.name, arguments: part.arguments === "" ? "{}" : part.arguments });
    }
    else if (part.type === "thinking") {
      const item = reasoningItem(part, at, warnings);
      if (item !== null) items.push(item);
    } else warnings.push(`${at}: a ${part.type} part cannot go in a Responses assistant turn and was dropped`);
  }
  flush();
  return items;
}

/** The canonical conversation as Responses `input` items. */
export function encodeResponsesInput(messages: readonly CanonicalMessage[], warnings: string[]): JsonObject[] {
  const items: JsonObject[] = [];
  messages.forEach((message, i) => {
    const at = `messages[${i}]`;
    if (message.role === "user") items.push(...userItems(message, at, warnings));
    else if (message.role === "assistant") items.push(...assistantItems(message, at, warnings));
    else {
      const content = inputContent(message.content, at, warnings);
      if (content.length > 0) items.push({ type: "message", role: message.developer === true ? "developer" : "system", content });
    }
  });
  return items;
}
