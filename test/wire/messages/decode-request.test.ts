import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../../src/canonical/gateway-error.ts";
import type { CanonicalRequest } from "../../../src/canonical/request.ts";
import { decodeMessagesRequest } from "../../../src/wire/messages/decode-request.ts";

const base = { model: "normal", max_tokens: 100 };
const user = (content: unknown) => ({ role: "user", content });
const PNG = { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" };

type Case = [string, Record<string, unknown>, Partial<CanonicalRequest>, string[]?];

const cases: Case[] = [
  [
    "string content and string system",
    { ...base, system: "Be brief.", messages: [user("Hi")] },
    { system: [{ type: "text", text: "Be brief." }], messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }], maxOutputTokens: 100, stream: false, stop: [], tools: [], sampling: {}, extra: {} },
  ],
  [
    "system blocks keep cache control (with ttl)",
    {
      ...base,
      system: [
        { type: "text", text: "x-anthropic-billing-header: cc_version=2" },
        { type: "text", text: "You are Claude Code.", cache_control: { type: "ephemeral" } },
        { type: "text", text: "Rules.", cache_control: { type: "ephemeral", ttl: "1h" } },
      ],
      messages: [user("Hi")],
    },
    {
      system: [
        { type: "text", text: "x-anthropic-billing-header: cc_version=2" },
        { type: "text", text: "You are Claude Code.", cacheControl: { type: "ephemeral" } },
        { type: "text", text: "Rules.", cacheControl: { type: "ephemeral", ttl: "1h" } },
      ],
    },
  ],
  [
    "a leading system message joins the system prompt; a later one keeps its place (Claude Code)",
    { ...base, system: "Top.", messages: [{ role: "system", content: "Lead." }, user("Hi"), { role: "system", content: "Agents: a, b" }, user("Go")] },
    {
      system: [{ type: "text", text: "Top." }, { type: "text", text: "Lead." }],
      messages: [
        { role: "user", content: [{ type: "text", text: "Hi" }] },
        { role: "system", content: [{ type: "text", text: "Agents: a, b" }] },
        { role: "user", content: [{ type: "text", text: "Go" }] },
      ],
    },
  ],
  [
    "parallel tool calls and results with error flag, image and cache control",
    {
      ...base,
      messages: [
        user("Weather and time?"),
        {
          role: "assistant",
          content: [
            { type: "text", text: "Calling." },
            { type: "tool_use", id: "toolu_1", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "toolu_2", name: "get_time", input: {} },
          ],
        },
        user([
          { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "Sunny" }, { type: "image", source: PNG }] },
          { type: "tool_result", tool_use_id: "toolu_2", content: "no clock", is_error: true, cache_control: { type: "ephemeral" } },
        ]),
      ],
    },
    {
      messages: [
        { role: "user", content: [{ type: "text", text: "Weather and time?" }] },
        {
          role: "assistant",
          content: [
            { type: "text", text: "Calling." },
            { type: "tool_call", id: "toolu_1", name: "get_weather", arguments: '{"city":"Paris"}' },
            { type: "tool_call", id: "toolu_2", name: "get_time", arguments: "{}" },
          ],
        },
        {
          role: "user",
          content: [
            {
              type: "tool_result",
              callId: "toolu_1",
              isError: false,
              content: [{ type: "text", text: "Sunny" }, { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" } }],
            },
            { type: "tool_result", callId: "toolu_2", isError: true, content: [{ type: "text", text: "no clock" }], cacheControl: { type: "ephemeral" } },
          ],
        },
      ],
    },
  ],
  [
    "images base64, URL and file",
    {
      ...base,
      messages: [
        user([
          { type: "image", source: PNG, cache_control: { type: "ephemeral" } },
          { type: "image", source: { type: "url", url: "https://example.com/a.jpg" } },
          { type: "image", source: { type: "file", file_id: "file_1" } },
          { type: "text", text: "What are these?" },
        ]),
      ],
    },
    {
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { kind: "base64", mediaType: "image/png", data: "iVBORw0KGgo=" }, cacheControl: { type: "ephemeral" } },
            { type: "image", source: { kind: "url", url: "https://example.com/a.jpg" } },
            { type: "image", source: { kind: "file", fileId: "file_1" } },
            { type: "text", text: "What are these?" },
          ],
        },
      ],
    },
  ],
  [
    "documents: PDF base64, URL, plain text, content blocks",
    {
      ...base,
      messages: [
        user([
          { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, title: "Spec" },
          { type: "document", source: { type: "url", url: "https://example.com/a.pdf" } },
          { type: "document", source: { type: "text", media_type: "text/plain", data: "plain words" } },
          { type: "document", source: { type: "content", content: [{ type: "text", text: "one" }, { type: "text", text: "two" }] } },
        ]),
      ],
    },
    {
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" }, title: "Spec" },
            { type: "document", source: { kind: "url", url: "https://example.com/a.pdf" } },
            { type: "document", source: { kind: "text", text: "plain words", mediaType: "text/plain" } },
            { type: "document", source: { kind: "text", text: "one\n\ntwo" } },
          ],
        },
      ],
    },
  ],
  [
    "thinking with signature and redacted thinking in history",
    {
      ...base,
      messages: [
        user("Q"),
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Let me see.", signature: "sig==" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "text", text: "A" },
          ],
        },
        user("Q2"),
      ],
    },
    {
      messages: [
        { role: "user", content: [{ type: "text", text: "Q" }] },
        {
          role: "assistant",
          content: [{ type: "thinking", text: "Let me see.", signature: "sig==" }, { type: "redacted_thinking", data: "opaque" }, { type: "text", text: "A" }],
        },
        { role: "user", content: [{ type: "text", text: "Q2" }] },
      ],
    },
  ],
  [
    "structured output and effort from output_config; other output_config fields stay in extra",
    { ...base, messages: [user("x")], thinking: { type: "adaptive" }, output_config: { effort: "xhigh", format: { type: "json_schema", schema: { type: "object" } }, task_budget: 5 } },
    { responseFormat: { type: "json_schema", name: "response", schema: { type: "object" } }, clientEffort: "max", extra: { output_config: { task_budget: 5 } } },
  ],
  ["manual budget 2048 → medium", { ...base, messages: [user("x")], thinking: { type: "enabled", budget_tokens: 2048 } }, { clientEffort: "medium" }],
  ["manual budget 1024 → low", { ...base, messages: [user("x")], thinking: { type: "enabled", budget_tokens: 1024 } }, { clientEffort: "low" }],
  ["manual budget 30000 → max", { ...base, messages: [user("x")], thinking: { type: "enabled", budget_tokens: 30000, display: "summarized" } }, { clientEffort: "max" }],
  ["thinking disabled → off", { ...base, messages: [user("x")], thinking: { type: "disabled" } }, { clientEffort: "off" }],
  ["adaptive without effort → high", { ...base, messages: [user("x")], thinking: { type: "adaptive" } }, { clientEffort: "high" }],
  [
    "tools: custom, builtin server tool; tool_choice any without parallel calls",
    {
      ...base,
      messages: [user("x")],
      tools: [
        { name: "Bash", description: "Run", input_schema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: {} }, eager_input_streaming: true, cache_control: { type: "ephemeral" } },
        { type: "custom", name: "strict_tool", input_schema: { type: "object" }, strict: true },
        { type: "web_search_20250305", name: "web_search", max_uses: 3 },
      ],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
    },
    {
      tools: [
        { kind: "function", name: "Bash", description: "Run", inputSchema: { $schema: "https://json-schema.org/draft/2020-12/schema", type: "object", properties: {} }, cacheControl: { type: "ephemeral" } },
        { kind: "function", name: "strict_tool", inputSchema: { type: "object" }, strict: true },
        { kind: "builtin", format: "messages", type: "web_search_20250305", name: "web_search", raw: { type: "web_search_20250305", name: "web_search", max_uses: 3 } },
      ],
      toolChoice: { type: "required" },
      parallelToolCalls: false,
    },
  ],
  ["tool_choice auto", { ...base, messages: [user("x")], tool_choice: { type: "auto" } }, { toolChoice: { type: "auto" } }],
  ["tool_choice tool", { ...base, messages: [user("x")], tool_choice: { type: "tool", name: "Bash" } }, { toolChoice: { type: "tool", name: "Bash" } }],
  ["tool_choice none", { ...base, messages: [user("x")], tool_choice: { type: "none" } }, { toolChoice: { type: "none" } }],
  [
    "sampling, stop sequences, stream, metadata.user_id, extras by wire name",
    {
      ...base,
      stream: true,
      messages: [user("x")],
      temperature: 0.5,
      top_p: 0.9,
      top_k: 40,
      stop_sequences: ["END", "###"],
      metadata: { user_id: '{"device_id":"d","session_id":"s"}' },
      context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] },
      cache_control: { type: "ephemeral" },
      service_tier: "auto",
    },
    {
      stream: true,
      sampling: { temperature: 0.5, topP: 0.9, topK: 40 },
      stop: ["END", "###"],
      user: '{"device_id":"d","session_id":"s"}',
      extra: { context_management: { edits: [{ type: "clear_thinking_20251015", keep: "all" }] }, cache_control: { type: "ephemeral" }, service_tier: "auto" },
    },
  ],
  [
    "server tool blocks and citations are dropped with warnings",
    {
      ...base,
      messages: [
        user("x"),
        {
          role: "assistant",
          content: [
            { type: "server_tool_use", id: "srvtoolu_1", name: "web_search", input: { query: "q" } },
            { type: "web_search_tool_result", tool_use_id: "srvtoolu_1", content: [] },
            { type: "text", text: "Found", citations: [{ type: "web_search_result_location", url: "u" }] },
          ],
        },
      ],
    },
    { messages: [{ role: "user", content: [{ type: "text", text: "x" }] }, { role: "assistant", content: [{ type: "text", text: "Found" }] }] },
    ["content block type server_tool_use dropped (no equivalent in other formats)", "content block type web_search_tool_result dropped (no equivalent in other formats)", "text block citations dropped"],
  ],
];

describe("decodeMessagesRequest", () => {
  test.each(cases)("%s", (_name, body, expected, warnings = []) => {
    const { value, warnings: got } = decodeMessagesRequest(body);
    expect(value).toMatchObject(expected);
    expect(got).toEqual(warnings);
  });

  test("fields the canonical model reads never leak into extra", () => {
    const { value } = decodeMessagesRequest({ ...base, stream: true, messages: [user("x")], thinking: { type: "adaptive" }, metadata: { user_id: "u" }, output_config: { effort: "low" } });
    expect(value.extra).toEqual({});
  });

  const invalid: [string, Record<string, unknown>, string][] = [
    ["unknown role", { ...base, messages: [{ role: "tool", content: "x" }] }, "messages[0].role"],
    ["text block without text", { ...base, messages: [user([{ type: "text" }])] }, "messages[0].content[0].text"],
    ["tool_use input not an object", { ...base, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "a", name: "b", input: "x" }] }] }, "messages[0].content[0].input"],
    ["image with unknown source", { ...base, messages: [user([{ type: "image", source: { type: "ftp" } }])] }, "messages[0].content[0].source.type"],
    ["system block that is not text", { ...base, system: [{ type: "image", source: PNG }], messages: [user("x")] }, "system[0].type"],
    ["image in a system message", { ...base, messages: [{ role: "system", content: [{ type: "image", source: PNG }] }] }, "messages[0].content[0].type"],
    ["tool_choice type", { ...base, messages: [user("x")], tool_choice: { type: "sometimes" } }, "tool_choice.type"],
    ["tool without schema", { ...base, messages: [user("x")], tools: [{ name: "a" }] }, "tools[0].input_schema"],
    ["cache_control type", { ...base, messages: [user([{ type: "text", text: "x", cache_control: { type: "forever" } }])] }, "messages[0].content[0].cache_control.type"],
    ["stop_sequences not strings", { ...base, messages: [user("x")], stop_sequences: [1] }, "stop_sequences[0]"],
    // Names spelt out only when an error needs them: each step of a deep path as the API names it.
    ["a message that is not an object", { ...base, messages: [user("x"), "hello"] }, "messages[1]"],
    ["content neither a string nor an array", { ...base, messages: [user("x"), { role: "assistant", content: 3 }] }, "messages[1].content"],
    ["block type not a string", { ...base, messages: [user([{ type: "text", text: "a" }, { type: 7 }])] }, "messages[0].content[1].type"],
    ["tool_result without its id", { ...base, messages: [user([{ type: "tool_result", content: "x" }])] }, "messages[0].content[0].tool_use_id"],
    ["tool_result content not an array", { ...base, messages: [user([{ type: "tool_result", tool_use_id: "t", content: 5 }])] }, "messages[0].content[0].content"],
    [
      "image in a tool result without data",
      { ...base, messages: [user([{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "a" }, { type: "image", source: { type: "base64", media_type: "image/png" } }] }])] },
      "messages[0].content[0].content[1].source.data",
    ],
    ["tool result cache_control ttl", { ...base, messages: [user([{ type: "tool_result", tool_use_id: "t", content: [{ type: "text", text: "a", cache_control: { type: "ephemeral", ttl: 5 } }] }])] }, "messages[0].content[0].content[0].cache_control.ttl"],
    ["document title", { ...base, messages: [user([{ type: "document", source: { type: "text", data: "d" }, title: 1 }])] }, "messages[0].content[0].title"],
    ["tool_use name", { ...base, messages: [{ role: "assistant", content: [{ type: "tool_use", id: "a", input: {} }] }] }, "messages[0].content[0].name"],
    ["thinking signature", { ...base, messages: [{ role: "assistant", content: [{ type: "thinking", thinking: "t", signature: 1 }] }] }, "messages[0].content[0].signature"],
    ["output format not json_schema", { ...base, messages: [user("x")], output_config: { format: { type: "regex" } } }, "output_config.format.type"],
  ];
  test.each(invalid)("400 naming the field: %s", (_name, body, param) => {
    let caught: unknown;
    try {
      decodeMessagesRequest(body);
    } catch (error) {
      caught = error;
    }
    expect(caught).toBeInstanceOf(GatewayError);
    expect((caught as GatewayError).status).toBe(400);
    expect((caught as GatewayError).param).toBe(param);
    expect((caught as GatewayError).message).toContain(`\`${param}\``);
  });
});
