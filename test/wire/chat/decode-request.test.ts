import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../src/canonical/gateway-error.ts";
import type { CanonicalRequest } from "../../../src/canonical/request.ts";
import { decodeChatRequest } from "../../../src/wire/chat/decode-request.ts";

const PNG = "iVBORw0KGgo=";
const user = (content: unknown) => ({ role: "user", content });
const decode = (body: Record<string, unknown>) => decodeChatRequest({ model: "normal", ...body });

describe("decodeChatRequest: messages", () => {
  const table: [string, unknown[], Partial<CanonicalRequest>][] = [
    [
      "leading system and developer go to system; later ones stay in place",
      [
        { role: "system", content: "You are terse." },
        { role: "developer", content: [{ type: "text", text: "Use tools.", cache_control: { type: "ephemeral" } }] },
        user("hi"),
        { role: "developer", content: "Now be verbose." },
      ],
      {
        system: [{ type: "text", text: "You are terse." }, { type: "text", text: "Use tools.", cacheControl: { type: "ephemeral" } }],
        messages: [
          { role: "user", content: [{ type: "text", text: "hi" }] },
          { role: "system", content: [{ type: "text", text: "Now be verbose." }], developer: true },
        ],
      },
    ],
    [
      "images base64 and URL, with detail; a PDF file",
      [
        user([
          { type: "text", text: "look" },
          { type: "image_url", image_url: { url: `data:image/png;base64,${PNG}`, detail: "high" } },
          { type: "image_url", image_url: { url: "https://example.com/cat.jpg" } },
          { type: "file", file: { file_data: "data:application/pdf;base64,JVBERi0=", filename: "a.pdf" } },
          { type: "file", file: { file_id: "file-123" } },
        ]),
      ],
      {
        messages: [
          {
            role: "user",
            content: [
              { type: "text", text: "look" },
              { type: "image", source: { kind: "base64", mediaType: "image/png", data: PNG }, detail: "high" },
              { type: "image", source: { kind: "url", url: "https://example.com/cat.jpg" } },
              { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" }, filename: "a.pdf" },
              { type: "document", source: { kind: "file", fileId: "file-123" } },
            ],
          },
        ],
      },
    ],
    [
      "assistant parallel tool calls with reasoning_content, then tool results merged into one user message",
      [
        user("weather and time?"),
        {
          role: "assistant",
          reasoning_content: "Two lookups.",
          content: null,
          tool_calls: [
            { id: "call_a", type: "function", function: { name: "get_weather", arguments: '{"city":"Paris"}' } },
            { id: "call_b", type: "function", function: { name: "get_time", arguments: '{"zone":"CET"}' } },
          ],
        },
        { role: "tool", tool_call_id: "call_a", content: "Sunny" },
        { role: "tool", tool_call_id: "call_b", content: [{ type: "text", text: "12:00" }] },
        user("thanks"),
      ],
      {
        messages: [
          { role: "user", content: [{ type: "text", text: "weather and time?" }] },
          {
            role: "assistant",
            content: [
              { type: "thinking", text: "Two lookups." },
              { type: "tool_call", id: "call_a", name: "get_weather", arguments: '{"city":"Paris"}' },
              { type: "tool_call", id: "call_b", name: "get_time", arguments: '{"zone":"CET"}' },
            ],
          },
          {
            role: "user",
            content: [
              { type: "tool_result", callId: "call_a", content: [{ type: "text", text: "Sunny" }], isError: false },
              { type: "tool_result", callId: "call_b", content: [{ type: "text", text: "12:00" }], isError: false },
            ],
          },
          { role: "user", content: [{ type: "text", text: "thanks" }] },
        ],
      },
    ],
    [
      "assistant refusal and text parts read as text",
      [user("x"), { role: "assistant", content: [{ type: "text", text: "a" }, { type: "refusal", refusal: "no" }] }],
      {
        messages: [
          { role: "user", content: [{ type: "text", text: "x" }] },
          { role: "assistant", content: [{ type: "text", text: "a" }, { type: "text", text: "no" }] },
        ],
      },
    ],
  ];
  for (const [name, messages, expected] of table) {
    test(name, () => expect(decode({ messages }).value).toMatchObject(expected));
  }

  test("a system-only conversation keeps everything in system", () => {
    const { value } = decode({ messages: [{ role: "system", content: "a" }] });
    expect(value.system).toEqual([{ type: "text", text: "a" }]);
    expect(value.messages).toEqual([]);
  });

  test("audio input is dropped with a warning", () => {
    const { value, warnings } = decode({ messages: [user([{ type: "input_audio", input_audio: { data: "x", format: "wav" } }])] });
    expect(value.messages[0]?.content).toEqual([]);
    expect(warnings.some((w) => w.includes("audio"))).toBe(true);
  });
});

describe("decodeChatRequest: top-level fields", () => {
  test("tools, tool choice, limits, sampling, stop, structured output, identity, effort, extra", () => {
    const { value } = decode({
      messages: [user("hi")],
      stream: true,
      stream_options: { include_usage: true },
      tools: [
        { type: "function", function: { name: "get_weather", description: "Weather", parameters: { type: "object", properties: { city: { type: "string" } } }, strict: true } },
        { type: "function", function: { name: "ping" } },
        { type: "custom", custom: { name: "grammar_tool" } },
      ],
      tool_choice: { type: "function", function: { name: "get_weather" } },
      parallel_tool_calls: false,
      max_tokens: 100,
      max_completion_tokens: 200,
      temperature: 0.2,
      top_p: 0.9,
      presence_penalty: 0.1,
      frequency_penalty: 0.3,
      seed: 7,
      stop: "END",
      response_format: { type: "json_schema", json_schema: { name: "answer", schema: { type: "object" }, strict: true } },
      user: "u-1",
      metadata: { team: "a" },
      reasoning_effort: "xhigh",
      store: false,
      prompt_cache_key: "k1",
      n: 1,
    });
    expect(value).toMatchObject({
      tools: [
        { kind: "function", name: "get_weather", description: "Weather", inputSchema: { type: "object", properties: { city: { type: "string" } } }, strict: true },
        { kind: "function", name: "ping", inputSchema: { type: "object", properties: {} } },
        { kind: "builtin", format: "chat", type: "custom", name: "grammar_tool" },
      ],
      toolChoice: { type: "tool", name: "get_weather" },
      parallelToolCalls: false,
      maxOutputTokens: 200,
      sampling: { temperature: 0.2, topP: 0.9, presencePenalty: 0.1, frequencyPenalty: 0.3, seed: 7 },
      stop: ["END"],
      responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true },
      stream: true,
      includeUsage: true,
      user: "u-1",
      metadata: { team: "a" },
      clientEffort: "max",
    });
    expect(value.extra).toEqual({ store: false, prompt_cache_key: "k1", n: 1 });
  });

  const choices: [unknown, unknown][] = [
    ["auto", { type: "auto" }],
    ["none", { type: "none" }],
    ["required", { type: "required" }],
    [{ type: "custom", custom: { name: "g" } }, { type: "tool", name: "g" }],
    [{ type: "allowed_tools", allowed_tools: { mode: "required", tools: [] } }, { type: "required" }],
  ];
  for (const [raw, expected] of choices) {
    test(`tool_choice ${JSON.stringify(raw)}`, () => expect(decode({ messages: [user("x")], tool_choice: raw }).value.toolChoice).toEqual(expected as never));
  }

  const efforts: [string, string | undefined][] = [["none", "off"], ["minimal", "low"], ["medium", "medium"], ["high", "high"], ["max", "max"], ["weird", undefined]];
  for (const [raw, expected] of efforts) {
    test(`reasoning_effort ${raw} → clientEffort ${expected}`, () => expect(decode({ messages: [user("x")], reasoning_effort: raw }).value.clientEffort).toBe(expected as never));
  }

  test("max_tokens alone, stop array, json_object, safety_identifier; no includeUsage without stream", () => {
    const { value } = decode({ messages: [user("x")], max_tokens: 50, stop: ["a", "b"], response_format: { type: "json_object" }, safety_identifier: "s-1" });
    expect(value).toMatchObject({ maxOutputTokens: 50, stop: ["a", "b"], responseFormat: { type: "json_object" }, user: "s-1", stream: false });
    expect(value.includeUsage).toBeUndefined();
  });
});

describe("decodeChatRequest: unreadable shapes name the field", () => {
  const table: [string, Record<string, unknown>, string][] = [
    ["unknown role", { messages: [{ role: "robot", content: "x" }] }, "messages[0].role"],
    ["content neither string nor array", { messages: [user(5)] }, "messages[0].content"],
    ["unknown part type", { messages: [user([{ type: "video" }])] }, "messages[0].content[0].type"],
    ["image in a system message", { messages: [{ role: "system", content: [{ type: "image_url", image_url: { url: "x" } }] }] }, "messages[0].content[0].type"],
    ["image_url without url", { messages: [user([{ type: "image_url", image_url: {} }])] }, "messages[0].content[0].image_url.url"],
    ["tool message without id", { messages: [{ role: "tool", content: "x" }] }, "messages[0].tool_call_id"],
    ["tool call without function name", { messages: [{ role: "assistant", tool_calls: [{ id: "c", function: {} }] }] }, "messages[0].tool_calls[0].function.name"],
    ["tool without function", { messages: [user("x")], tools: [{ type: "function" }] }, "tools[0].function.name"],
    ["bad tool_choice", { messages: [user("x")], tool_choice: "sometimes" }, "tool_choice"],
    ["bad response_format", { messages: [user("x")], response_format: { type: "xml" } }, "response_format"],
    ["bad stop", { messages: [user("x")], stop: [1] }, "stop"],
    ["bad temperature", { messages: [user("x")], temperature: "hot" }, "temperature"],
  ];
  for (const [name, body, param] of table) {
    test(name, () => {
      let error: unknown;
      try {
        decode(body);
      } catch (e) {
        error = e;
      }
      expect(error).toBeInstanceOf(GatewayError);
      expect((error as GatewayError).status).toBe(400);
      expect((error as GatewayError).param).toBe(param);
    });
  }
});

describe("decodeChatRequest: real clients' bodies", () => {
  test("pi (openai-completions, reasoning model): developer prompt, store false, max_completion_tokens, non-strict tools", () => {
    const { value, warnings } = decode({
      messages: [{ role: "developer", content: "You are pi." }, user("list files")],
      stream: true,
      stream_options: { include_usage: true },
      store: false,
      max_completion_tokens: 16384,
      reasoning_effort: "medium",
      tools: [{ type: "function", function: { name: "bash", description: "Run", parameters: { type: "object", properties: { cmd: { type: "string" } } }, strict: false } }],
    });
    expect(warnings).toEqual([]);
    expect(value).toMatchObject({
      system: [{ type: "text", text: "You are pi." }],
      messages: [{ role: "user", content: [{ type: "text", text: "list files" }] }],
      tools: [{ kind: "function", name: "bash", strict: false }],
      maxOutputTokens: 16384,
      clientEffort: "medium",
      includeUsage: true,
      extra: { store: false },
    });
  });

  test("AI SDK: system message, image part with a URL, tool loop with parallel calls", () => {
    const { value } = decode({
      messages: [
        { role: "system", content: "sys" },
        user([{ type: "text", text: "what is this" }, { type: "image_url", image_url: { url: "https://e.com/x.png" } }]),
        { role: "assistant", content: "", tool_calls: [{ id: "a", type: "function", function: { name: "f", arguments: "{}" } }] },
        { role: "tool", tool_call_id: "a", content: "ok" },
      ],
      stream: true,
      stream_options: { include_usage: true },
    });
    expect(value.messages.map((m) => m.content.map((p) => p.type))).toEqual([["text", "image"], ["tool_call"], ["tool_result"]]);
  });
});
