import type { OutputPart } from "../../canonical/content-part.ts";
import type { Converted } from "../../canonical/converted.ts";
import { type GatewayError, fail } from "../../canonical/gateway-error.ts";
import type { CanonicalResponse } from "../../canonical/response.ts";
import { decodeChatStopReason } from "./map-stop-reason.ts";
import { decodeChatUsage } from "./map-usage.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

const invalid = (what: string): GatewayError => fail("UpstreamMalformed", `upstream sent an invalid chat completion: ${what}`);

/** Text of `content`: a string, or (some compatible servers) an array of text parts. */
function contentText(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((p) => (isJsonObject(p) && typeof p.text === "string" ? p.text : "")).join("");
}

/** `reasoning_content` (DeepSeek, vLLM …) or `reasoning` (OpenRouter …): reasoning text some servers add. */
function reasoningText(message: Record<string, unknown>): string {
  if (typeof message.reasoning_content === "string") return message.reasoning_content;
  return typeof message.reasoning === "string" ? message.reasoning : "";
}

function decodeMessage(message: Record<string, unknown>): { content: OutputPart[]; refused: boolean } {
  const content: OutputPart[] = [];
  const reasoning = reasoningText(message);
  if (reasoning !== "") content.push({ type: "thinking", text: reasoning });
  const text = contentText(message.content);
  if (text !== "") content.push({ type: "text", text });
  const refusal = typeof message.refusal === "string" ? message.refusal : "";
  if (refusal !== "") content.push({ type: "text", text: refusal });
  const calls = Array.isArray(message.tool_calls) ? message.tool_calls : [];
  for (const [k, call] of calls.entries()) {
    const fn = isJsonObject(call) ? call.function : undefined;
    if (!isJsonObject(call) || !isJsonObject(fn) || typeof fn.name !== "string") throw invalid(`tool_calls[${k}] has no function name`);
    const id = typeof call.id === "string" && call.id !== "" ? call.id : `call_${k}`;
    content.push({ type: "tool_call", id, name: fn.name, arguments: typeof fn.arguments === "string" ? fn.arguments : "" });
  }
  return { content, refused: refusal !== "" };
}

/** A Chat Completions non-stream answer → the canonical response (the first choice). */
export function decodeChatResponse(body: unknown): Converted<CanonicalResponse> {
  if (!isJsonObject(body)) throw invalid("not a JSON object");
  if (isJsonObject(body.error)) throw invalid("an error body");
  const choices = body.choices;
  if (!Array.isArray(choices) || !isJsonObject(choices[0])) throw invalid("no choices");
  const choice = choices[0];
  if (!isJsonObject(choice.message)) throw invalid("choices[0].message missing");
  const { content, refused } = decodeMessage(choice.message);
  const finish = typeof choice.finish_reason === "string" ? choice.finish_reason : null;
  const warnings = choices.length > 1 ? ["only the first of several choices was kept"] : [];
  return {
    value: {
      id: typeof body.id === "string" ? body.id : "chatcmpl-unknown",
      model: typeof body.model === "string" ? body.model : "",
      content,
      stopReason: decodeChatStopReason(finish, refused),
      usage: decodeChatUsage(body.usage),
    },
    warnings,
  };
}
