import { describe, expect, test } from "bun:test";
import type { CanonicalRequest } from "../../../src/canonical/request.ts";
import { DEFAULT_CONFIG } from "../../../src/config/default-config.ts";
import type { ModelConfig } from "../../../src/config/schema.ts";
import { encodeChatRequest } from "../../../src/wire/chat/encode-request.ts";

const model: ModelConfig = DEFAULT_CONFIG.models["sim-normal"]!;
const ctx = { upstreamModelId: "gpt-up", model };
const PNG = "iVBORw0KGgo=";

const base: CanonicalRequest = { system: [], messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], tools: [], sampling: {}, stop: [], stream: false, extra: {} };
const encode = (over: Partial<CanonicalRequest>, c = ctx) => encodeChatRequest({ ...base, ...over }, c);

describe("encodeChatRequest: messages", () => {
  const table: [string, Partial<CanonicalRequest>, unknown[]][] = [
    [
      "system blocks (with cache control) become one system message; mid-history system stays in place",
      {
        system: [{ type: "text", text: "A", cacheControl: { type: "ephemeral" } }, { type: "text", text: "B" }],
        messages: [
          { role: "user", content: [{ type: "text", text: "hi" }] },
          { role: "system", content: [{ type: "text", text: "Skills: x" }] },
          { role: "assistant", content: [{ type: "text", text: "ok" }] },
        ],
      },
      [
        { role: "system", content: "A\n\nB" },
        { role: "user", content: "hi" },
        { role: "system", content: "Skills: x" },
        { role: "assistant", content: "ok" },
      ],
    ],
    [
      "images base64 and URL with detail, documents; text-only content stays a string",
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "see" },
              { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } },
              { type: "image", source: { kind: "url", url: "https://e.com/a.jpg" }, detail: "low" },
              { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBE" }, title: "Spec" },
              { type: "document", source: { kind: "text", text: "plain" } },
            ],
          },
        ],
      },
      [
        {
          role: "user",
          content: [
            { type: "text", text: "see" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: "image_url", image_url: { url: "https://e.com/a.jpg", detail: "low" } },
            { type: "file", file: { file_data: "data:application/pdf;base64,JVBE", filename: "Spec" } },
            { type: "text", text: "plain" },
          ],
        },
      ],
    ],
    [
      "parallel tool calls, thinking dropped; results become tool messages (error flag in text), tool-result images follow as a user message",
      {
        messages: [
          { role: "user", content: [{ type: "text", text: "go" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", text: "plan", signature: "sig" },
              { type: "redacted_thinking", data: "zz" },
              { type: "text", text: "Calling." },
              { type: "tool_call", id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
              { type: "tool_call", id: "toolu_2", name: "screenshot", arguments: "" },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", callId: "toolu_1", content: [{ type: "text", text: "no such city" }], isError: true },
              { type: "tool_result", callId: "toolu_2", content: [{ type: "text", text: "done" }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG } }], isError: false },
              { type: "text", text: "and now?" },
            ],
          },
        ],
      },
      [
        { role: "user", content: "go" },
        {
          role: "assistant",
          content: "Calling.",
          tool_calls: [
            { id: "toolu_1", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "toolu_2", type: "function", function: { name: "screenshot", arguments: "{}" } },
          ],
        },
        { role: "tool", tool_call_id: "toolu_1", content: "Error: no such city" },
        { role: "tool", tool_call_id: "toolu_2", content: "done" },
        {
          role: "user",
          content: [
            { type: "text", text: "Attachments of tool result toolu_2:" },
            { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}` } },
            { type: "text", text: "and now?" },
          ],
        },
      ],
    ],
  ];
  for (const [name, over, expected] of table) test(name, () => expect(encode(over).value.messages).toEqual(expected));

  test("lossy parts are reported", () => {
    const { warnings } = encode(table[2]![1]);
    expect(warnings.some((w) => w.includes("thinking"))).toBe(true);
    expect(warnings.some((w) => w.includes("error flag"))).toBe(true);
    expect(warnings.some((w) => w.includes("moved to a user message"))).toBe(true);
  });

  test("ids over 40 characters are shortened the same way on the call and its result", () => {
    const long = `fc_${"x".repeat(60)}`;
    const { value, warnings } = encode({
      messages: [
        { role: "assistant", content: [{ type: "tool_call", id: long, name: "f", arguments: "{}" }] },
        { role: "user", content: [{ type: "tool_result", callId: long, content: [], isError: false }] },
      ],
    });
    const messages = value.messages as Record<string, unknown>[];
    const callId = (messages[0]!.tool_calls as { id: string }[])[0]!.id;
    expect(callId.length).toBe(40);
    expect(messages[1]!.tool_call_id).toBe(callId);
    expect(warnings.length).toBe(1);
  });

  test("a model without vision gets no images, with a warning", () => {
    const { value, warnings } = encode(
      { messages: [{ role: "user", content: [{ type: "text", text: "x" }, { type: "image", source: { kind: "url", url: "https://e.com/i.png" } }] }] },
      { upstreamModelId: "m", model: { ...model, vision: false } },
    );
    expect(value.messages).toEqual([{ role: "user", content: "x" }]);
    expect(warnings).toEqual(["image dropped: the model does not accept images"]);
  });
});

describe("encodeChatRequest: top-level fields", () => {
  test("model, tools, tool choice, parallel flag, limits, sampling, stop, structured output, user, stream usage", () => {
    const { value, warnings } = encode({
      tools: [
        { kind: "function", name: "get_weather", description: "Weather", inputSchema: { type: "object", properties: {} }, strict: true, cacheControl: { type: "ephemeral" } },
        { kind: "builtin", format: "responses", type: "web_search", raw: { type: "web_search", external_web_access: false } },
        { kind: "builtin", format: "messages", type: "custom", name: "lookup", raw: { name: "lookup", input_schema: { type: "object" } } },
        {
          kind: "builtin",
          format: "responses",
          type: "namespace",
          name: "multi_agent_v1",
          raw: { type: "namespace", name: "multi_agent_v1", tools: [{ type: "function", name: "spawn_agent", description: "Spawn", parameters: { type: "object" } }, { type: "web_search" }] },
        },
      ],
      toolChoice: { type: "tool", name: "get_weather" },
      parallelToolCalls: false,
      maxOutputTokens: 500,
      sampling: { temperature: 0.5, topP: 0.8, topK: 40, seed: 3 },
      stop: ["a", "b", "c", "d", "e"],
      responseFormat: { type: "json_schema", name: "out", schema: { type: "object" }, strict: true },
      user: "u1",
      metadata: { a: "b" },
      stream: true,
      includeUsage: false,
      extra: { prompt_cache_key: "k", store: false },
    });
    expect(value).toEqual({
      model: "gpt-up",
      messages: [{ role: "user", content: "hi" }],
      tools: [
        { type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: {} }, strict: true } },
        { type: "function", function: { name: "lookup", parameters: { type: "object" } } },
        { type: "function", function: { name: "spawn_agent", description: "Spawn", parameters: { type: "object" } } },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: false,
      max_completion_tokens: 500,
      stop: ["a", "b", "c", "d"],
      temperature: 0.5,
      top_p: 0.8,
      seed: 3,
      response_format: { type: "json_schema", json_schema: { name: "out", schema: { type: "object" }, strict: true } },
      user: "u1",
      stream: true,
      stream_options: { include_usage: true },
    });
    for (const fragment of ["web_search tool dropped", "lookup sent as a plain function", "multi_agent_v1 flattened into 1 plain functions", "top_k", "stop sequences", "metadata"]) {
      expect(warnings.some((w) => w.includes(fragment))).toBe(true);
    }
  });

  const choices: [CanonicalRequest["toolChoice"], unknown][] = [
    [{ type: "auto" }, "auto"],
    [{ type: "none" }, "none"],
    [{ type: "required" }, "required"],
    [{ type: "tool", name: "missing" }, "required"],
  ];
  const tool = { kind: "function" as const, name: "f", inputSchema: { type: "object" } };
  for (const [choice, expected] of choices) {
    test(`tool choice ${JSON.stringify(choice)} → ${JSON.stringify(expected)}`, () => {
      expect(encode({ tools: [tool], toolChoice: choice, parallelToolCalls: true }).value.tool_choice).toEqual(expected);
    });
  }

  test("no parallel flag when no tool may be called; no tools for a model without tools", () => {
    expect(encode({ tools: [tool], toolChoice: { type: "none" }, parallelToolCalls: false }).value.parallel_tool_calls).toBeUndefined();
    const { value, warnings } = encode({ tools: [tool], toolChoice: { type: "auto" } }, { upstreamModelId: "m", model: { ...model, tools: false } });
    expect(value.tools).toBeUndefined();
    expect(value.tool_choice).toBeUndefined();
    expect(warnings).toEqual(["tools dropped: the model does not accept tools"]);
  });

  test("output cap clamped to the model, long user ids hashed, previous_response_id reported, non-stream has no stream_options", () => {
    const longUser = JSON.stringify({ device_id: "d".repeat(40), session_id: "s".repeat(40) });
    const { value, warnings } = encode({ maxOutputTokens: 10_000_000, user: longUser, previousResponseId: "resp_1" });
    expect(value.max_completion_tokens).toBe(model.maxOutputTokens);
    expect(value.user).toMatch(/^[0-9a-f]{64}$/);
    expect(encode({ user: longUser }).value.user).toBe(value.user);
    expect(value.stream).toBe(false);
    expect(value.stream_options).toBeUndefined();
    expect(warnings.length).toBe(3);
  });

  test("json_object and text formats", () => {
    expect(encode({ responseFormat: { type: "json_object" } }).value.response_format).toEqual({ type: "json_object" });
    expect(encode({ responseFormat: { type: "text" } }).value.response_format).toEqual({ type: "text" });
  });
});
