import type { DocumentPart, ImagePart, TextPart, ToolResultPart } from "../../canonical/content-part.ts";
import { buildDataUrl } from "./parse-data-url.ts";
import type { JsonObject } from "../../canonical/json-object.ts";

/** What encoding a message may drop, and whether images are allowed at all (the model's `vision`). */
export interface PartContext {
  readonly vision: boolean;
  readonly warn: (warning: string) => void;
}

/** A canonical image → a Chat `image_url` part, or null when Chat cannot take it. */
function encodeImage(part: ImagePart, ctx: PartContext): JsonObject | null {
  if (!ctx.vision) {
    ctx.warn("image dropped: the model does not accept images");
    return null;
  }
  const source = part.source;
  if (source.kind === "file") {
    ctx.warn("image given by file id dropped: Chat Completions takes images only as URLs or data URLs");
    return null;
  }
  const url = source.kind === "url" ? source.url : buildDataUrl(source.mediaType, source.data);
  return { type: "image_url", image_url: { url, ...(part.detail ? { detail: part.detail } : {}) } };
}

/** A canonical document → a Chat `file` part (or a text part for inline text), or null when Chat cannot take it. */
function encodeDocument(part: DocumentPart, ctx: PartContext): JsonObject | null {
  const source = part.source;
  const filename = part.filename ?? part.title;
  switch (source.kind) {
    case "text":
      return { type: "text", text: part.title ? `${part.title}\n\n${source.text}` : source.text };
    case "base64":
      return { type: "file", file: { file_data: buildDataUrl(source.mediaType, source.data), filename: filename ?? "document.pdf" } };
    case "file":
      return { type: "file", file: { file_id: source.fileId, ...(filename ? { filename } : {}) } };
    case "url":
      ctx.warn("document given by URL dropped: Chat Completions takes files only inline or by file id");
      return null;
    default: {
      const unreachable: never = source;
      return unreachable;
    }
  }
}

/** User content parts → Chat parts (a plain string when it is text only, as most servers expect). */
export function encodeUserParts(parts: readonly (TextPart | ImagePart | DocumentPart)[], ctx: PartContext): string | JsonObject[] {
  const out: JsonObject[] = [];
  for (const part of parts) {
    const encoded = part.type === "text" ? { type: "text", text: part.text } : part.type === "image" ? encodeImage(part, ctx) : encodeDocument(part, ctx);
    if (encoded) out.push(encoded);
  }
  return out.every((p) => p.type === "text") ? joinText(out) : out;
}

const joinText = (parts: readonly JsonObject[]): string => parts.map((p) => p.text as string).join("\n\n");

/**
 * A tool result → the `tool` message's text, plus the media Chat does not allow in a tool message
 * (moved to a user message after the results). The error flag has no field: it is said in the text.
 */
export function encodeToolResult(part: ToolResultPart, ctx: PartContext): { text: string; media: (ImagePart | DocumentPart)[] } {
  const texts: string[] = [];
  const media: (ImagePart | DocumentPart)[] = [];
  for (const item of part.content) {
    if (item.type === "text") texts.push(item.text);
    else if (item.type === "document" && item.source.kind === "text") texts.push(item.source.text);
    else media.push(item);
  }
  let text = texts.join("\n\n");
  if (part.isError) {
    ctx.warn("tool result error flag expressed in its text: Chat tool messages have no error field");
    text = text === "" ? "Error" : `Error: ${text}`;
  }
  if (media.length > 0) ctx.warn("images or files of a tool result moved to a user message: Chat tool messages take only text");
  return { text, media };
}
