import type { ContentPart, DocumentPart, ImagePart, ToolResultContent } from "../../canonical/content-part.ts";
import { parseToolInput } from "./parse-tool-input.ts";
import { writeCacheControl } from "./read-fields.ts";
import { RESPONSES_REASONING_PREFIX } from "../pack-reasoning.ts";
import { sanitizeToolId } from "./sanitize-tool-id.ts";
import type { JsonObject } from "../../canonical/json-object.ts";

export type Warn = (message: string) => void;

const IMAGE_TYPES: ReadonlySet<string> = new Set(["image/jpeg", "image/png", "image/gif", "image/webp"]);

function encodeImage(part: ImagePart, warn: Warn): JsonObject | null {
  if (part.detail !== undefined) warn("image detail dropped");
  const source = part.source;
  let wire: JsonObject;
  if (source.kind === "base64") {
    if (!IMAGE_TYPES.has(source.mediaType)) {
      warn(`image of type ${source.mediaType} dropped (Messages takes jpeg, png, gif, webp)`);
      return null;
    }
    wire = { type: "base64", media_type: source.mediaType, data: source.data };
  } else if (source.kind === "url") wire = { type: "url", url: source.url };
  else wire = { type: "file", file_id: source.fileId };
  return { type: "image", source: wire, ...writeCacheControl(part.cacheControl) };
}

function documentSource(source: DocumentPart["source"], warn: Warn): JsonObject | null {
  switch (source.kind) {
    case "text":
      return { type: "text", media_type: "text/plain", data: source.text };
    case "url":
      return { type: "url", url: source.url };
    case "file":
      return { type: "file", file_id: source.fileId };
    case "base64":
      if (source.mediaType === "application/pdf") return { type: "base64", media_type: source.mediaType, data: source.data };
      if (source.mediaType.startsWith("text/")) {
        return { type: "text", media_type: "text/plain", data: Buffer.from(source.data, "base64").toString("utf8") };
      }
      warn(`document of type ${source.mediaType} dropped (Messages takes PDF and plain text)`);
      return null;
    default: {
      const unreachable: never = source;
      return unreachable;
    }
  }
}

function encodeDocument(part: DocumentPart, warn: Warn): JsonObject | null {
  const source = documentSource(part.source, warn);
  if (!source) return null;
  // Messages has no file name; it is the best title when there is none.
  const title = part.title ?? part.filename;
  return { type: "document", source, ...(title !== undefined ? { title } : {}), ...writeCacheControl(part.cacheControl) };
}

function encodeResultContent(parts: readonly ToolResultContent[], warn: Warn): JsonObject[] {
  const blocks: JsonObject[] = [];
  for (const part of parts) {
    const block =
      part.type === "text"
        ? part.text === ""
          ? null
          : { type: "text", text: part.text, ...writeCacheControl(part.cacheControl) }
        : part.type === "image"
          ? encodeImage(part, warn)
          : encodeDocument(part, warn);
    if (block) blocks.push(block);
  }
  return blocks;
}

/**
 * One canonical part → a Messages content block, or null when the API cannot take it (reported).
 * Empty text blocks are dropped: the API rejects them.
 */
export function encodeBlock(part: ContentPart, warn: Warn): JsonObject | null {
  switch (part.type) {
    case "text":
      return part.text === "" ? null : { type: "text", text: part.text, ...writeCacheControl(part.cacheControl) };
    case "image":
      return encodeImage(part, warn);
    case "document":
      return encodeDocument(part, warn);
    case "tool_call": {
      const { input, ok } = parseToolInput(part.arguments);
      if (!ok) warn(`tool call ${part.name}: arguments are not a JSON object, sent as {}`);
      return { type: "tool_use", id: sanitizeToolId(part.id), name: part.name, input, ...writeCacheControl(part.cacheControl) };
    }
    case "tool_result":
      return {
        type: "tool_result",
        tool_use_id: sanitizeToolId(part.callId),
        content: encodeResultContent(part.content, warn),
        ...(part.isError ? { is_error: true } : {}),
        ...writeCacheControl(part.cacheControl),
      };
    case "thinking":
      if (part.signature === undefined || part.signature === "") {
        warn("unsigned thinking dropped (Messages needs its signature)");
        return null;
      }
      // Packed reasoning of a Responses model: only a Responses upstream can read it.
      if (part.signature.startsWith(RESPONSES_REASONING_PREFIX)) {
        warn("reasoning from a Responses model dropped (it only goes back to that API)");
        return null;
      }
      return { type: "thinking", thinking: part.text, signature: part.signature };
    case "redacted_thinking":
      return { type: "redacted_thinking", data: part.data };
    default: {
      const unreachable: never = part;
      return unreachable;
    }
  }
}
