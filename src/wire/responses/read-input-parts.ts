import type { DocumentPart, ImagePart, MediaSource, TextPart } from "../../canonical/content-part.ts";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

export type InputPart = TextPart | ImagePart | DocumentPart;

const DATA_URL = /^data:([^;,]+)(?:;[^,]*)?;base64,(.*)$/s;

/** A `data:` URL as a base64 source, any other URL as a URL source. */
export function mediaFromUrl(url: string, fallbackType: string): MediaSource {
  const match = DATA_URL.exec(url);
  if (match) return { kind: "base64", mediaType: match[1] ?? fallbackType, data: match[2] ?? "" };
  return { kind: "url", url };
}

function readImage(part: Record<string, unknown>, at: string): ImagePart {
  const detail = typeof part.detail === "string" ? { detail: part.detail } : {};
  if (typeof part.image_url === "string") return { type: "image", source: mediaFromUrl(part.image_url, "image/png"), ...detail };
  if (typeof part.file_id === "string") return { type: "image", source: { kind: "file", fileId: part.file_id }, ...detail };
  throw invalidRequest(`${at} needs image_url or file_id`, at);
}

function readFile(part: Record<string, unknown>, at: string): DocumentPart {
  const filename = typeof part.filename === "string" ? { filename: part.filename } : {};
  if (typeof part.file_data === "string") {
    const data = part.file_data;
    const source: MediaSource = data.startsWith("data:")
      ? mediaFromUrl(data, "application/pdf")
      : { kind: "base64", mediaType: "application/pdf", data };
    return { type: "document", source, ...filename };
  }
  if (typeof part.file_url === "string") return { type: "document", source: { kind: "url", url: part.file_url }, ...filename };
  if (typeof part.file_id === "string") return { type: "document", source: { kind: "file", fileId: part.file_id }, ...filename };
  throw invalidRequest(`${at} needs file_data, file_url or file_id`, at);
}

/**
 * Message content or a function_call_output `output`: a string, or parts. Text of any flavour
 * (`input_text`, `output_text`, `refusal`) becomes text; audio and unknown parts are dropped with a warning.
 */
export function readInputParts(content: unknown, at: string, warnings: string[]): InputPart[] {
  if (typeof content === "string") return content === "" ? [] : [{ type: "text", text: content }];
  if (!Array.isArray(content)) throw invalidRequest(`${at} must be a string or an array of content parts`, at);
  const parts: InputPart[] = [];
  for (const [i, part] of content.entries()) {
    const here = `${at}[${i}]`;
    if (!isJsonObject(part)) throw invalidRequest(`${here} must be an object`, here);
    switch (part.type) {
      case "input_text":
      case "output_text":
      case "text":
        if (typeof part.text !== "string") throw invalidRequest(`${here}.text must be a string`, `${here}.text`);
        parts.push({ type: "text", text: part.text });
        break;
      case "refusal":
        if (typeof part.refusal === "string") parts.push({ type: "text", text: part.refusal });
        break;
      case "input_image":
        parts.push(readImage(part, here));
        break;
      case "input_file":
        parts.push(readFile(part, here));
        break;
      default:
        warnings.push(`${here}: content part type ${JSON.stringify(part.type)} is not supported and was dropped`);
    }
  }
  return parts;
}
