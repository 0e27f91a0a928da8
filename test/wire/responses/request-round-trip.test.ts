import { describe, expect, test } from "bun:test";
import { DEFAULT_CONFIG } from "../../../src/config/default-config.ts";
import { decodeResponsesRequest } from "../../../src/wire/responses/decode-request.ts";
import { encodeResponsesRequest } from "../../../src/wire/responses/encode-request.ts";

const model = DEFAULT_CONFIG.models["sim-smart"]!;

/** A Codex-shaped request mid tool loop: developer prompt as an item, builtin tools, encrypted reasoning. */
const codexBody = {
  model: "smart",
  stream: true,
  input: [
    { type: "message", id: "msg_1", role: "developer", content: [{ type: "input_text", text: "You are Codex." }] },
    { type: "message", id: "msg_2", role: "user", content: [{ type: "input_text", text: "List files" }, { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" }] },
    { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Use ls." }], encrypted_content: "gAAAAB-enc" },
    { type: "message", role: "assistant", content: [{ type: "output_text", text: "Running ls.", annotations: [] }] },
    { type: "function_call", id: "fc_1", call_id: "call_1", name: "exec_command", arguments: '{"cmd":"ls"}' },
    { type: "function_call", id: "fc_2", call_id: "call_2", name: "exec_command", arguments: '{"cmd":"pwd"}' },
    { type: "function_call_output", id: "fco_1", call_id: "call_1", output: "a.txt\nb.txt" },
    { type: "function_call_output", id: "fco_2", call_id: "call_2", output: [{ type: "input_text", text: "/work" }] },
  ],
  tools: [
    { type: "function", name: "exec_command", description: "Run a command", parameters: { type: "object", properties: { cmd: { type: "string" } }, required: ["cmd"] }, strict: false },
    { type: "namespace", name: "multi_agent_v1", tools: [{ type: "function", name: "spawn" }] },
    { type: "web_search", external_web_access: false },
  ],
  tool_choice: "auto",
  parallel_tool_calls: true,
  reasoning: { summary: "auto" },
  store: false,
  include: ["reasoning.encrypted_content"],
  prompt_cache_key: "thread-42",
  max_output_tokens: 4000,
  text: { format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true } },
  metadata: { session: "s1" },
};

describe("decodeResponsesRequest → encodeResponsesRequest keeps the meaning of a Responses body", () => {
  const decoded = decodeResponsesRequest(codexBody);
  const { value: body, warnings } = encodeResponsesRequest(decoded.value, { upstreamModelId: "sim-smart", model });

  test("no warnings either way", () => {
    expect(decoded.warnings).toEqual([]);
    expect(warnings).toEqual([]);
  });

  test("the developer prompt becomes instructions; the conversation items come back in order", () => {
    expect(body.instructions).toBe("You are Codex.");
    expect(body.input).toEqual([
      { type: "message", role: "user", content: [{ type: "input_text", text: "List files" }, { type: "input_image", image_url: "data:image/png;base64,AAAA", detail: "auto" }] },
      { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "Use ls." }], encrypted_content: "gAAAAB-enc" },
      { type: "message", role: "assistant", content: [{ type: "output_text", text: "Running ls.", annotations: [] }] },
      { type: "function_call", call_id: "call_1", name: "exec_command", arguments: '{"cmd":"ls"}' },
      { type: "function_call", call_id: "call_2", name: "exec_command", arguments: '{"cmd":"pwd"}' },
      { type: "function_call_output", call_id: "call_1", output: "a.txt\nb.txt" },
      { type: "function_call_output", call_id: "call_2", output: "/work" },
    ]);
  });

  test("tools (builtins unchanged), choice, limits, format and OpenAI-side fields", () => {
    expect(body).toMatchObject({
      model: "sim-smart",
      stream: true,
      tools: codexBody.tools,
      tool_choice: "auto",
      parallel_tool_calls: true,
      max_output_tokens: 4000,
      text: codexBody.text,
      metadata: codexBody.metadata,
      prompt_cache_key: "thread-42",
      store: false,
      include: ["reasoning.encrypted_content"],
      reasoning: { summary: "auto" },
    });
  });
});
