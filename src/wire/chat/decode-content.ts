import type { CacheControl, DocumentPart, ImagePart, TextPart } from "../../canonical/content-part.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import { parseDataUrl } from "./parse-data-url.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

export type UserPart = TextPart | ImagePart | DocumentPart;

/** `cache_control` as some Chat clients put it on parts (the OpenRouter / Anthropic-compatible extension). */
export function readCacheControl(raw: unknown): CacheControl | undefined {
  if (!isJsonObject(raw) || raw.type !== "ephemeral") return undefined;
  return typeof raw.ttl === "string" ? { type: "ephemeral", ttl: raw.ttl } : { type: "ephemeral" };
}

function textPart(text: string, raw: Record<string, unknown>): TextPart {
  const cacheControl = readCacheControl(raw.cache_control);
  return cacheControl ? { type: "text", text, cacheControl } : { type: "text", text };
}

function imagePart(part: Record<string, unknown>, path: string): ImagePart {
  const image = part.image_url;
  const url = typeof image === "string" ? image : isJsonObject(image) && typeof image.url === "string" ? image.url : undefined;
  if (url === undefined) throw invalidRequest(`\`${path}.image_url.url\`: expected a string`, `${path}.image_url.url`);
  const inline = parseDataUrl(url);
  const source = inline ? { kind: "base64" as const, ...inline } : { kind: "url" as const, url };
  const detail = isJsonObject(image) && typeof image.detail === "string" ? image.detail : undefined;
  const cacheControl = readCacheControl(part.cache_control);
  return { type: "image", source, ...(detail ? { detail } : {}), ...(cacheControl ? { cacheControl } : {}) };
}

function filePart(part: Record<string, unknown>, path: string): DocumentPart {
  const file = part.file;
  if (!isJsonObject(file)) throw invalidRequest(`\`${path}.file\`: expected an object`, `${path}.file`);
  const filename = typeof file.filename === "string" ? file.filename : undefined;
  let source: DocumentPart["source"];
  if (typeof file.file_data === "string") {
    // The API takes a data URL; bare base64 is accepted by some clients and read as a PDF.
    source = { kind: "base64", ...(parseDataUrl(file.file_data) ?? { mediaType: "application/pdf", data: file.file_data }) };
  } else if (typeof file.file_id === "string") {
    source = { kind: "file", fileId: file.file_id };
  } else {
    throw invalidRequest(`\`${path}.file\`: needs \`file_data\` or \`file_id\``, `${path}.file`);
  }
  const cacheControl = readCacheControl(part.cache_control);
  return { type: "document", source, ...(filename ? { filename } : {}), ...(cacheControl ? { cacheControl } : {}) };
}

/**
 * A Chat message `content` (string or parts) → canonical parts. `allowMedia` is false for roles
 * that take only text (system, developer, tool, assistant); `refusal` parts (assistant history)
 * read as text.
 */
export function decodeContent(content: unknown, path: string, allowMedia: boolean, warnings: string[]): UserPart[] {
  if (content === null || content === undefined) return [];
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw invalidRequest(`\`${path}\`: expected a string or an array of content parts`, path);
  const parts: UserPart[] = [];
  for (const [j, part] of content.entries()) {
    const partPath = `${path}[${j}]`;
    if (!isJsonObject(part) || typeof part.type !== "string") throw invalidRequest(`\`${partPath}.type\`: field required`, `${partPath}.type`);
    const type = part.type;
    if (type === "text" || type === "refusal") {
      const text = type === "text" ? part.text : part.refusal;
      if (typeof text !== "string") throw invalidRequest(`\`${partPath}.${type}\`: expected a string`, `${partPath}.${type}`);
      if (text !== "") parts.push(textPart(text, part));
    } else if (type === "image_url" && allowMedia) {
      parts.push(imagePart(part, partPath));
    } else if (type === "file" && allowMedia) {
      parts.push(filePart(part, partPath));
    } else if (type === "input_audio" && allowMedia) {
      warnings.push(`${partPath}: audio input has no canonical form and was dropped`);
    } else {
      throw invalidRequest(`\`${partPath}.type\`: unsupported content part type '${type}' here`, `${partPath}.type`);
    }
  }
  return parts;
}
