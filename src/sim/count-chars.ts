/**
 * Characters of input text in any of the three wire formats. Ids, roles, signatures and binary
 * payloads (images, files) are not text; tool-call inputs count as their JSON, as do arguments,
 * so one conversation costs about the same in every format.
 */
const NOT_TEXT = new Set([
  "type",
  "id",
  "role",
  "tool_use_id",
  "tool_call_id",
  "call_id",
  "signature",
  "cache_control",
  "source",
  "image_url",
  "file_data",
  "file_id",
  "data",
  "encrypted_content",
  "status",
  "is_error",
  "annotations",
]);

export function countChars(value: unknown): number {
  if (typeof value === "string") return value.length;
  if (typeof value === "number" || typeof value === "boolean") return String(value).length;
  if (Array.isArray(value)) {
    let sum = 0;
    for (const item of value) sum += countChars(item);
    return sum;
  }
  if (value !== null && typeof value === "object") {
    let sum = 0;
    for (const [key, inner] of Object.entries(value)) {
      if (NOT_TEXT.has(key)) continue;
      sum += key === "input" && inner !== null && typeof inner === "object" ? JSON.stringify(inner).length : countChars(inner);
    }
    return sum;
  }
  return 0;
}

/** Tool definitions count as name + description + schema JSON, whatever the format wraps them in. */
export function countToolChars(tools: readonly { name: string; description?: unknown; schema: unknown }[]): number {
  let sum = 0;
  for (const tool of tools) {
    sum += tool.name.length;
    if (typeof tool.description === "string") sum += tool.description.length;
    if (tool.schema !== undefined) sum += JSON.stringify(tool.schema).length;
  }
  return sum;
}
