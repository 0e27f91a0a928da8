import type {
  ContentPart,
  DocumentPart,
  ImagePart,
  MediaSource,
  TextPart,
  ToolResultContent,
} from "../../canonical/content-part.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import { type Field, FieldPath, objectAt, optionalString, readCacheControl, stringAt } from "./read-fields.ts";
import { fromMessagesToolId } from "./map-tool-id.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

// A big conversation holds thousands of blocks: the walks below are plain loops, build no field
// name unless an error names it (FieldPath), and spread no optional member into a new object.

/** Collects warnings once each, however many blocks trigger them. */
export type Warn = (message: string) => void;

function decodeText(block: JsonObject, field: Field, warn: Warn): TextPart {
  const text = stringAt(block.text, field, "text");
  if (Array.isArray(block.citations) && block.citations.length > 0) warn("text block citations dropped");
  const cacheControl = readCacheControl(block.cache_control, field, "cache_control");
  return cacheControl ? { type: "text", text, cacheControl } : { type: "text", text };
}

function decodeMediaSource(value: unknown, field: Field): MediaSource {
  const source = objectAt(value, field);
  switch (source.type) {
    case "base64":
      return { kind: "base64", mediaType: stringAt(source.media_type, field, "media_type"), data: stringAt(source.data, field, "data") };
    case "url":
      return { kind: "url", url: stringAt(source.url, field, "url") };
    case "file":
      return { kind: "file", fileId: stringAt(source.file_id, field, "file_id") };
    default:
      throw invalidRequest(`\`${String(field)}.type\`: unsupported source type`, `${String(field)}.type`);
  }
}

function decodeImage(block: JsonObject, field: Field): ImagePart {
  const source = decodeMediaSource(block.source, new FieldPath(field, "source"));
  const cacheControl = readCacheControl(block.cache_control, field, "cache_control");
  return cacheControl ? { type: "image", source, cacheControl } : { type: "image", source };
}

/** Text of a `content` document source; non-text blocks inside it cannot be carried. */
function contentSourceText(value: unknown, field: string, warn: Warn): string {
  if (typeof value === "string") return value;
  if (!Array.isArray(value)) throw invalidRequest(`\`${field}\`: expected a string or an array`, field);
  const texts: string[] = [];
  value.forEach((item, i) => {
    const block = objectAt(item, `${field}[${i}]`);
    if (block.type === "text") texts.push(stringAt(block.text, `${field}[${i}].text`));
    else warn("non-text blocks inside a content document dropped");
  });
  return texts.join("\n\n");
}

function decodeDocument(block: JsonObject, at: Field, warn: Warn): DocumentPart {
  const field = String(at);
  const sourceField = `${field}.source`;
  const raw = objectAt(block.source, sourceField);
  let source: DocumentPart["source"];
  if (raw.type === "text") {
    const mediaType = optionalString(raw.media_type, `${sourceField}.media_type`);
    const text = stringAt(raw.data, `${sourceField}.data`);
    source = mediaType === undefined ? { kind: "text", text } : { kind: "text", text, mediaType };
  } else if (raw.type === "content") {
    source = { kind: "text", text: contentSourceText(raw.content, `${sourceField}.content`, warn) };
  } else {
    source = decodeMediaSource(raw, sourceField);
  }
  if (block.context !== undefined && block.context !== null) warn("document context dropped");
  if (isJsonObject(block.citations) && block.citations.enabled === true) warn("document citations setting dropped");
  const title = optionalString(block.title, `${field}.title`);
  const cacheControl = readCacheControl(block.cache_control, `${field}.cache_control`);
  return { type: "document", source, ...(title !== undefined ? { title } : {}), ...(cacheControl ? { cacheControl } : {}) };
}

function decodeToolResultContent(value: unknown, field: Field, warn: Warn): ToolResultContent[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [{ type: "text", text: value }];
  if (!Array.isArray(value)) {
    const name = String(field);
    throw invalidRequest(`\`${name}\`: expected a string or an array`, name);
  }
  const parts: ToolResultContent[] = [];
  for (let i = 0; i < value.length; i++) {
    const blockField = new FieldPath(field, i);
    const block = objectAt(value[i], blockField);
    if (block.type === "text") parts.push(decodeText(block, blockField, warn));
    else if (block.type === "image") parts.push(decodeImage(block, blockField));
    else if (block.type === "document") parts.push(decodeDocument(block, blockField, warn));
    else if (block.type === "search_result") {
      // Only the text of a search result has a place elsewhere; its source and title become a header line.
      const texts = Array.isArray(block.content) ? contentSourceText(block.content, `${String(blockField)}.content`, warn) : "";
      parts.push({ type: "text", text: [block.title, block.source, texts].filter((s) => typeof s === "string" && s !== "").join("\n") });
      warn("tool_result search_result flattened to text");
    } else warn(`tool_result content block type ${String(block.type)} dropped`);
  }
  return parts;
}

/**
 * One Messages content block → a canonical part, or null for blocks with no canonical place
 * (server tool calls and their results), which are reported.
 */
export function decodeBlock(item: unknown, field: Field, warn: Warn): ContentPart | null {
  const block = objectAt(item, field);
  switch (block.type) {
    case "text":
      return decodeText(block, field, warn);
    case "image":
      return decodeImage(block, field);
    case "document":
      return decodeDocument(block, field, warn);
    case "tool_use": {
      const input = block.input === undefined ? {} : objectAt(block.input, field, "input");
      const cacheControl = readCacheControl(block.cache_control, field, "cache_control");
      const id = fromMessagesToolId(stringAt(block.id, field, "id"));
      const name = stringAt(block.name, field, "name");
      const args = JSON.stringify(input);
      return cacheControl ? { type: "tool_call", id, name, arguments: args, cacheControl } : { type: "tool_call", id, name, arguments: args };
    }
    case "tool_result": {
      const cacheControl = readCacheControl(block.cache_control, field, "cache_control");
      const callId = fromMessagesToolId(stringAt(block.tool_use_id, field, "tool_use_id"));
      const content = decodeToolResultContent(block.content, new FieldPath(field, "content"), warn);
      const isError = block.is_error === true;
      return cacheControl ? { type: "tool_result", callId, content, isError, cacheControl } : { type: "tool_result", callId, content, isError };
    }
    case "thinking": {
      const signature = optionalString(block.signature, field, "signature");
      const text = stringAt(block.thinking, field, "thinking");
      return signature === undefined ? { type: "thinking", text } : { type: "thinking", text, signature };
    }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: stringAt(block.data, field, "data") };
    default:
      if (typeof block.type !== "string") {
        const name = `${String(field)}.type`;
        throw invalidRequest(`\`${name}\`: expected a string`, name);
      }
      warn(`content block type ${block.type} dropped (no equivalent in other formats)`);
      return null;
  }
}

/** A message's `content` (string or blocks) → canonical parts. */
export function decodeContent(value: unknown, field: Field, warn: Warn): ContentPart[] {
  if (typeof value === "string") return [{ type: "text", text: value }];
  if (!Array.isArray(value)) {
    const name = String(field);
    throw invalidRequest(`\`${name}\`: expected a string or an array`, name);
  }
  const parts: ContentPart[] = [];
  for (let i = 0; i < value.length; i++) {
    const part = decodeBlock(value[i], new FieldPath(field, i), warn);
    if (part) parts.push(part);
  }
  return parts;
}
