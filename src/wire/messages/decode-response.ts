import type { OutputPart } from "../../canonical/content-part.ts";
import type { Converted } from "../../canonical/converted.ts";
import { droppedWarning } from "../../canonical/dropped-content.ts";
import { fail, type GatewayError } from "../../canonical/gateway-error.ts";
import type { CanonicalResponse } from "../../canonical/response.ts";
import { decodeMessagesStopReason } from "./map-stop-reason.ts";
import { decodeMessagesUsage } from "./map-usage.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

const malformed = (what: string): GatewayError => fail("UpstreamMalformed", `upstream sent an invalid Messages answer: ${what}`);

function str(value: unknown, what: string): string {
  if (typeof value !== "string") throw malformed(what);
  return value;
}

/** One output block → a canonical part; server-tool blocks have no canonical place and are reported. */
function decodeOutputBlock(block: unknown, i: number, warnings: Set<string>): OutputPart | null {
  if (!isJsonObject(block)) throw malformed(`content[${i}] is not an object`);
  switch (block.type) {
    case "text":
      if (Array.isArray(block.citations) && block.citations.length > 0) warnings.add(droppedWarning("citations"));
      return { type: "text", text: str(block.text, `content[${i}].text`) };
    case "thinking": {
      const text = str(block.thinking, `content[${i}].thinking`);
      return typeof block.signature === "string" ? { type: "thinking", text, signature: block.signature } : { type: "thinking", text };
    }
    case "redacted_thinking":
      return { type: "redacted_thinking", data: str(block.data, `content[${i}].data`) };
    case "tool_use":
      return {
        type: "tool_call",
        id: str(block.id, `content[${i}].id`),
        name: str(block.name, `content[${i}].name`),
        arguments: JSON.stringify(block.input ?? {}),
      };
    default:
      warnings.add(droppedWarning(String(block.type)));
      return null;
  }
}

/** A Messages non-stream answer → the canonical response; throws a 502 for a body that is not one. */
export function decodeMessagesResponse(body: unknown): Converted<CanonicalResponse> {
  if (!isJsonObject(body) || body.type !== "message") throw malformed("not a message object");
  if (!Array.isArray(body.content)) throw malformed("content is not an array");
  const warnings = new Set<string>();
  const content: OutputPart[] = [];
  body.content.forEach((block, i) => {
    const part = decodeOutputBlock(block, i, warnings);
    if (part) content.push(part);
  });
  return {
    value: {
      id: str(body.id, "id"),
      model: typeof body.model === "string" ? body.model : "",
      content,
      stopReason: decodeMessagesStopReason(body.stop_reason, body.stop_sequence),
      usage: decodeMessagesUsage(body.usage),
    },
    warnings: [...warnings],
  };
}
