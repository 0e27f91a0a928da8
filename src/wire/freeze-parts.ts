import type { ContentPart } from "../canonical/content-part.ts";

/** Canonical parts shared between requests (createDecodeOnce): each part frozen, and a tool result's own parts. */
export function freezeParts<T extends readonly ContentPart[]>(parts: T): T {
  for (const part of parts) {
    if (part.type === "tool_result") freezeParts(part.content);
    Object.freeze(part);
  }
  return parts;
}
