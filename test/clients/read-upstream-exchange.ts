import type { SimReceived } from "../../src/sim/route-request.ts";
import type { TestGateway } from "../helpers/start-test-gateway.ts";

export interface UpstreamExchange {
  /** Recorded requests to the simulated upstream's create endpoints, in order. */
  readonly requests: readonly SimReceived[];
  /** The API each request spoke (`messages`, `chat`, `responses`). */
  readonly apis: readonly string[];
  /** Tool results each request carried back, whichever of the three APIs it spoke. */
  readonly toolResults: readonly (readonly string[])[];
}

const API_OF_PATH: Readonly<Record<string, string>> = { "/v1/messages": "messages", "/v1/chat/completions": "chat", "/v1/responses": "responses" };
const apiOf = (path: string): string | undefined => API_OF_PATH[path.split("?")[0] ?? ""];

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === "object" && value !== null && !Array.isArray(value);

/** Text of a string or of an array of text parts (`text`, `input_text`, `output_text`). */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content
    .filter(isRecord)
    .map((part) => (typeof part.text === "string" ? part.text : ""))
    .join("");
}

/** Messages `tool_result` blocks, Chat `role: "tool"` messages, Responses `function_call_output` items. */
function toolResultsOf(body: unknown): string[] {
  if (!isRecord(body)) return [];
  const results: string[] = [];
  for (const message of Array.isArray(body.messages) ? body.messages.filter(isRecord) : []) {
    if (message.role === "tool") results.push(textOf(message.content));
    if (!Array.isArray(message.content)) continue;
    for (const block of message.content.filter(isRecord)) if (block.type === "tool_result") results.push(textOf(block.content));
  }
  for (const item of Array.isArray(body.input) ? body.input.filter(isRecord) : []) {
    if (item.type === "function_call_output" || item.type === "custom_tool_call_output") results.push(textOf(item.output));
  }
  return results;
}

/**
 * What the simulated upstream received for one client run: the requests whose body carries the
 * run's tag (a word of its prompt, repeated in every request of the conversation), so runs that
 * overlap in time are told apart.
 */
export function readUpstreamExchange(gw: TestGateway, tag: string): UpstreamExchange {
  const received = gw.gateway.sim?.received;
  if (!received) throw new Error("the gateway has no recording in-process simulated upstream");
  const requests = received.filter((r) => apiOf(r.path) !== undefined && JSON.stringify(r.body).includes(tag));
  return { requests, apis: requests.map((r) => apiOf(r.path) ?? ""), toolResults: requests.map((r) => toolResultsOf(r.body)) };
}
