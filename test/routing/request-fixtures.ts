import type { ContentPart } from "../../src/canonical/content-part.ts";
import type { CanonicalMessage, CanonicalRequest, Tool } from "../../src/canonical/request.ts";

export const user = (...content: (string | ContentPart)[]): CanonicalMessage => ({
  role: "user",
  content: content.map((c) => (typeof c === "string" ? { type: "text", text: c } : c)),
});
export const assistant = (...content: (string | ContentPart)[]): CanonicalMessage => ({
  role: "assistant",
  content: content.map((c) => (typeof c === "string" ? { type: "text", text: c } : c)),
});
export const toolCall = (id: string, name = "Bash", args = '{"command":"ls"}'): ContentPart => ({ type: "tool_call", id, name, arguments: args });
export const toolResult = (callId: string, text: string, isError = false): ContentPart => ({
  type: "tool_result",
  callId,
  content: [{ type: "text", text }],
  isError,
});
export const thinking = (text = "hmm", signature = "sig"): ContentPart => ({ type: "thinking", text, signature });
export const image: ContentPart = { type: "image", source: { kind: "url", url: "https://example.com/a.png" } };
export const bashTool: Tool = { kind: "function", name: "Bash", description: "Run a command", inputSchema: { type: "object" } };

export function request(messages: CanonicalMessage[], overrides: Partial<CanonicalRequest> = {}): CanonicalRequest {
  return { system: [], messages, tools: [], sampling: {}, stop: [], stream: false, extra: {}, ...overrides };
}
