import type {
  ContentPart,
  DocumentPart,
  ImagePart,
  MediaSource,
  TextPart,
  ToolResultContent,
} from "../../canonical/content-part.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import { objectAt, optionalString, readCacheControl, stringAt } from "./read-fields.ts";
import { fromMessagesToolId } from "./map-tool-id.ts";
import { isJsonObject, type JsonObject } from "../../canonical/json-object.ts";

/** Collects warnings once each, however many blocks trigger them. */
export type Warn = (message: string) => void;

function decodeText(block: JsonObject, field: string, warn: Warn): TextPart {
  const text = stringAt(block.text, `${field}.text`);
  if (Array.isArray(block.citations) && block.citations.length > 0) warn("text block citations dropped");
  const cacheControl = readCacheControl(block.cache_control, `${field}.cache_control`);
  return cacheControl ? { type: "text", text, cacheControl } : { type: "text", text };
}

function decodeMediaSource(value: unknown, field: string): MediaSource {
  const source = objectAt(value, field);
  switch (source.type) {
    case "base64":
      return { kind: "base64", mediaType: stringAt(source.media_type, `${field}.media_type`), data: stringAt(source.data, `${field}.data`) };
    case "url":
      return { kind: "url", url: stringAt(source.url, `${field}.url`) };
    case "file":
      return { kind: "file", fileId: stringAt(source.file_id, `${field}.file_id`) };
    default:
      throw invalidRequest(`\`${field}.type\`: unsupported source type`, `${field}.type`);
  }
}

function decodeImage(block: JsonObject, field: string): ImagePart {
  const source = decodeMediaSource(block.source, `${field}.source`);
  const cacheControl = readCacheControl(block.cache_control, `${field}.cache_control`);
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

function decodeDocument(block: JsonObject, field: string, warn: Warn): DocumentPart {
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

function decodeToolResultContent(value: unknown, field: string, warn: Warn): ToolResultContent[] {
  if (value === undefined || value === null) return [];
  if (typeof value === "string") return [{ type: "text", text: value }];
  if (!Array.isArray(value)) throw invalidRequest(`\`${field}\`: expected a string or an array`, field);
  const parts: ToolResultContent[] = [];
  value.forEach((item, i) => {
    const blockField = `${field}[${i}]`;
    const block = objectAt(item, blockField);
    if (block.type === "text") parts.push(decodeText(block, blockField, warn));
    else if (block.type === "image") parts.push(decodeImage(block, blockField));
    else if (block.type === "document") parts.push(decodeDocument(block, blockField, warn));
    else if (block.type === "search_result") {
      // Only the text of a search result has a place elsewhere; its source and title become a header line.
      const texts = Array.isArray(block.content) ? contentSourceText(block.content, `${blockField}.content`, warn) : "";
      parts.push({ type: "text", text: [block.title, block.source, texts].filter((s) => typeof s === "string" && s !== "").join("\n") });
      warn("tool_result search_result flattened to text");
    } else warn(`tool_result content block type ${String(block.type)} dropped`);
  });
  return parts;
}

/**
 * One Messages content block → a canonical part, or null for blocks with no canonical place
 * (server tool calls and their results), which are reported.
 */
export function decodeBlock(item: unknown, field: string, warn: Warn): ContentPart | null {
  const block = objectAt(item, field);
  switch (block.type) {
    case "text":
      return decodeText(block, field, warn);
    case "image":
      return decodeImage(block, field);
    case "document":
      return decodeDocument(block, field, warn);
    case "tool_use": {
      const input = block.input === undefined ? {} : objectAt(block.input, `${field}.input`);
      const cacheControl = readCacheControl(block.cache_control, `${field}.cache_control`);
      return {
        type: "tool_call",
        id: fromMessagesToolId(stringAt(block.id, `${field}.id`)),
        name: stringAt(block.name, `${field}.name`),
        arguments: JSON.stringify(input),
        ...(cacheControl ? { cacheControl } : {}),
      };
    }
    case "tool_result": {
      const cacheControl = readCacheControl(block.cache_control, `${field}.cache_control`);
      return {
        type: "tool_result",
        callId: fromMessagesToolId(stringAt(block.tool_use_id, `${field}.tool_use_id`)),
        content: decodeToolResultContent(block.content, `${field}.content`, warn),
        isError: block.is_error === true,
        ...(cacheControl ? { cacheControl } : {}),
      };
    }
    case "thinking": {
      const signature = optionalString(block.signature, `${field}.signature`);
      const text = stringAt(block.thinking, `${field}.thinking`);
      return signature === undefined ? { type: "thinking", text } : { type: "thinking", text, signature };
    }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: stringAt(block.data, `${field}.data`) };
    default:
      if (typeof block.type !== "string") throw invalidRequest(`\`${field}.type\`: expected a string`, `${field}.type`);
      warn(`content block type ${block.type} dropped (no equivalent in other formats)`);
      return null;
  }
}

/** A message's `content` (string or blocks) → canonical parts. */
export function decodeContent(value: unknown, field: string, warn: Warn): ContentPart[] {
  if (typeof value === "string") return [{ type: "text", text: value }];
  if (!Array.isArray(value)) throw invalidRequest(`\`${field}\`: expected a string or an array`, field);
  const parts: ContentPart[] = [];
  value.forEach((item, i) => {
    const part = decodeBlock(item, `${field}[${i}]`, warn);
    if (part) parts.push(part);
  });
  return parts;
}
