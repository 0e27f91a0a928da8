import { describe, expect, test } from "bun:test";
import type { CanonicalRequest } from "../../../src/canonical/request.ts";
import { GatewayError } from "../../../src/canonical/gateway-error.ts";
import { decodeResponsesRequest } from "../../../src/wire/responses/decode-request.ts";
import { packForeignThinking, unpackResponsesReasoning } from "../../../src/wire/pack-reasoning.ts";

type Body = Record<string, unknown>;

const decode = (body: Body) => decodeResponsesRequest({ model: "normal", ...body });

const cases: { name: string; body: Body; expect: Partial<CanonicalRequest>; warnings?: number }[] = [
  {
    name: "string input",
    body: { input: "Hello" },
    expect: { system: [], messages: [{ role: "user", content: [{ type: "text", text: "Hello" }] }], stop: [], stream: false, tools: [] },
  },
  {
    name: "instructions and leading system/developer items go to system; a later developer item stays in messages",
    body: {
      instructions: "Be brief.",
      input: [
        { type: "message", role: "developer", content: [{ type: "input_text", text: "Codex rules" }] },
        { role: "system", content: "AI SDK system" },
        { type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] },
        { type: "message", role: "developer", content: "Mid-conversation note" },
      ],
    },
    expect: {
      system: [
        { type: "text", text: "Be brief." },
        { type: "text", text: "Codex rules" },
        { type: "text", text: "AI SDK system" },
      ],
      messages: [
        { role: "user", content: [{ type: "text", text: "Hi" }] },
        { role: "system", content: [{ type: "text", text: "Mid-conversation note" }], developer: true },
      ],
    },
  },
  {
    name: "images base64 and URL, a file, detail kept",
    body: {
      input: [
        {
          role: "user",
          content: [
            { type: "input_image", image_url: "data:image/png;base64,iVBORw0KGgo=", detail: "high" },
            { type: "input_image", image_url: "https://example.com/cat.jpg", detail: "auto" },
            { type: "input_file", file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" },
            { type: "input_file", file_id: "file-123" },
          ],
        },
      ],
    },
    expect: {
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" }, detail: "high" },
            { type: "image", source: { kind: "url", url: "https://example.com/cat.jpg" }, detail: "auto" },
            { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" }, filename: "a.pdf" },
            { type: "document", source: { kind: "file", fileId: "file-123" } },
          ],
        },
      ],
    },
  },
  {
    name: "parallel function calls and their outputs (one with an image) in a tool loop",
    body: {
      input: [
        { role: "user", content: "Weather and time?" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Checking.", annotations: [] }] },
        { type: "function_call", id: "fc_1", call_id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
        { type: "function_call", id: "fc_2", call_id: "call_2", name: "get_time", arguments: "{}" },
        { type: "function_call_output", id: "fco_1", call_id: "call_1", output: "Sunny" },
        {
          type: "function_call_output",
          call_id: "call_2",
          output: [{ type: "input_text", text: "Clock:" }, { type: "input_image", image_url: "https://example.com/clock.png" }],
        },
        { role: "user", content: "Thanks" },
      ],
    },
    expect: {
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather and time?" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Checking." },
            { type: "tool_call", id: "call_1", name: "get_weather", arguments: '{"city":"Paris"}' },
            { type: "tool_call", id: "call_2", name: "get_time", arguments: "{}" },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", callId: "call_1", content: [{ type: "text", text: "Sunny" }], isError: false },
            {
              type: "tool_result",
              callId: "call_2",
              content: [{ type: "text", text: "Clock:" }, { type: "image", source: { kind: "url", url: "https://example.com/clock.png" } }],
              isError: false,
            },
            { type: "text", text: "Thanks" },
          ],
        },
      ],
    },
  },
  {
    name: "an rlm1 reasoning item turns back into the exact thinking part it carried",
    body: {
      input: [
        { role: "user", content: "Q" },
        { type: "reasoning", id: "rs_x", summary: [{ type: "summary_text", text: "Plan" }], encrypted_content: packForeignThinking({ text: "Plan", signature: "sig-1" }) },
      ],
    },
    expect: {
      messages: [
        { role: "user", content: [{ type: "text", text: "Q" }] },
        { role: "assistant", content: [{ type: "thinking", text: "Plan", signature: "sig-1" }] },
      ],
    },
  },
  {
    name: "tools: function tools, builtin tools kept raw; tool_choice, parallel flag, limits, sampling, format",
    body: {
      input: "x",
      tools: [
        { type: "function", name: "exec_command", description: "Run", parameters: { type: "object", properties: { cmd: { type: "string" } } }, strict: false },
        { type: "namespace", name: "multi_agent_v1", tools: [] },
        { type: "web_search", external_web_access: false },
      ],
      tool_choice: { type: "function", name: "exec_command" },
      parallel_tool_calls: false,
      max_output_tokens: 500,
      temperature: 0.2,
      top_p: 0.9,
      text: { format: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true }, verbosity: "low" },
      stream: true,
    },
    expect: {
      tools: [
        { kind: "function", name: "exec_command", description: "Run", inputSchema: { type: "object", properties: { cmd: { type: "string" } } }, strict: false },
        { kind: "builtin", format: "responses", type: "namespace", name: "multi_agent_v1", raw: { type: "namespace", name: "multi_agent_v1", tools: [] } },
        { kind: "builtin", format: "responses", type: "web_search", raw: { type: "web_search", external_web_access: false } },
      ],
      toolChoice: { type: "tool", name: "exec_command" },
      parallelToolCalls: false,
      maxOutputTokens: 500,
      sampling: { temperature: 0.2, topP: 0.9 },
      responseFormat: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true },
      stream: true,
    },
  },
  {
    name: "reasoning effort → clientEffort; Codex fields with no canonical place → extra",
    body: {
      input: "x",
      reasoning: { effort: "xhigh", summary: "auto" },
      store: false,
      include: ["reasoning.encrypted_content"],
      prompt_cache_key: "pck",
      client_metadata: { a: 1 },
      text: { verbosity: "low" },
      safety_identifier: "user-1",
      user: "legacy",
      metadata: { team: "a" },
      previous_response_id: "resp_prev",
    },
    expect: {
      clientEffort: "max",
      user: "user-1",
      metadata: { team: "a" },
      previousResponseId: "resp_prev",
      extra: {
        store: false,
        include: ["reasoning.encrypted_content"],
        prompt_cache_key: "pck",
        client_metadata: { a: 1 },
        reasoning: { summary: "auto" },
        text: { verbosity: "low" },
        user: "legacy",
      },
    },
  },
  { name: "tool_choice required / none / json_object", body: { input: "x", tool_choice: "required", text: { format: { type: "json_object" } } }, expect: { toolChoice: { type: "required" }, responseFormat: { type: "json_object" } } },
  { name: "an item_reference cannot be resolved and is reported", body: { input: [{ type: "item_reference", id: "msg_1" }, { role: "user", content: "x" }] }, expect: { messages: [{ role: "user", content: [{ type: "text", text: "x" }] }] }, warnings: 1 },
  { name: "allowed_tools keeps only its mode, with a warning", body: { input: "x", tool_choice: { type: "allowed_tools", mode: "required", tools: [] } }, expect: { toolChoice: { type: "required" } }, warnings: 1 },
];

describe("decodeResponsesRequest", () => {
  for (const c of cases) {
    test(c.name, () => {
      const { value, warnings } = decode(c.body);
      expect(value).toMatchObject(c.expect);
      expect(warnings).toHaveLength(c.warnings ?? 0);
    });
  }

  test("a Responses reasoning item is carried as an rlr1-signed thinking part", () => {
    const { value } = decode({
      input: [
        { role: "user", content: "Q" },
        { type: "reasoning", id: "rs_9", summary: [{ type: "summary_text", text: "a" }, { type: "summary_text", text: "b" }], encrypted_content: "gAAAA" },
      ],
    });
    const part = value.messages[1]!.content[0]!;
    expect(part).toMatchObject({ type: "thinking", text: "a\n\nb" });
    expect(unpackResponsesReasoning((part as { signature: string }).signature)).toEqual({ id: "rs_9", encryptedContent: "gAAAA" });
  });

  const invalid: { name: string; body: Body; param: string }[] = [
    { name: "item not an object", body: { input: ["x"] }, param: "input[0]" },
    { name: "unknown role", body: { input: [{ type: "message", role: "tool", content: "x" }] }, param: "input[0].role" },
    { name: "function_call without call_id", body: { input: [{ type: "function_call", name: "f", arguments: "{}" }] }, param: "input[0].call_id" },
    { name: "image without a source", body: { input: [{ role: "user", content: [{ type: "input_image" }] }] }, param: "input[0].content[0]" },
    { name: "json_schema without a schema", body: { input: "x", text: { format: { type: "json_schema", name: "n" } } }, param: "text.format" },
    { name: "non-string metadata", body: { input: "x", metadata: { a: 1 } }, param: "metadata.a" },
    { name: "tools not an array", body: { input: "x", tools: {} }, param: "tools" },
  ];
  for (const c of invalid) {
    test(`invalid: ${c.name} → 400 naming ${c.param}`, () => {
      let caught: unknown;
      try {
        decode(c.body);
      } catch (error) {
        caught = error;
      }
      expect(caught).toBeInstanceOf(GatewayError);
      expect(caught).toMatchObject({ status: 400, type: "invalid_request_error", param: c.param });
    });
  }
});
