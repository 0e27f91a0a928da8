import { describe, expect, test } from "bun:test";
import type { CanonicalRequest } from "../../../src/canonical/request.ts";
import { decodeMessagesRequest } from "../../../src/wire/messages/decode-request.ts";
import { encodeMessagesRequest } from "../../../src/wire/messages/encode-request.ts";
import { CTX } from "./model-context.ts";

const EMPTY: CanonicalRequest = { system: [], messages: [], tools: [], sampling: {}, stop: [], stream: false, extra: {} };
const req = (over: Partial<CanonicalRequest>): CanonicalRequest => ({ ...EMPTY, messages: [{ role: "user", content: [{ type: "text", text: "hi" }] }], ...over });
const HI = { role: "user", content: [{ type: "text", text: "hi" }] };
const PNG = { kind: "base64" as const, mediaType: "image/png", data: "iVBORw0KGgo=" };

type Case = [string, CanonicalRequest, Record<string, unknown>, string[]?];

const cases: Case[] = [
  [
    "minimal: model id, max_tokens from the model's limit, stream flag",
    req({ stream: true }),
    { model: "sim-normal", max_tokens: 64_000, messages: [HI], stream: true, thinking: { type: "adaptive", display: "summarized" } },
  ],
  ["max tokens above the model's limit are lowered", req({ maxOutputTokens: 100_000 }), { max_tokens: 64_000 }, ["max tokens 100000 lowered to the model's limit 64000"]],
  [
    "system parts with cache control; mid-conversation instructions move to the system prompt",
    req({
      system: [{ type: "text", text: "Top", cacheControl: { type: "ephemeral", ttl: "1h" } }, { type: "text", text: "" }],
      messages: [
        { role: "user", content: [{ type: "text", text: "a" }] },
        { role: "system", developer: true, content: [{ type: "text", text: "Later rule" }] },
        { role: "user", content: [{ type: "text", text: "b" }] },
      ],
    }),
    {
      system: [{ type: "text", text: "Top", cache_control: { type: "ephemeral", ttl: "1h" } }, { type: "text", text: "Later rule" }],
      messages: [{ role: "user", content: [{ type: "text", text: "a" }, { type: "text", text: "b" }] }],
    },
    ["instructions from the middle of the conversation moved to the system prompt"],
  ],
  [
    "parallel calls; results merged into one user turn, results first; error flag; image in a result; ids sanitized alike",
    req({
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_call", id: "functions.get_weather:0", name: "get_weather", arguments: '{"city":"Paris"}' },
            { type: "tool_call", id: "call_2", name: "get_time", arguments: "" },
          ],
        },
        { role: "user", content: [{ type: "tool_result", callId: "functions.get_weather:0", isError: false, content: [{ type: "text", text: "Sunny" }, { type: "image", source: PNG }] }] },
        { role: "user", content: [{ type: "text", text: "and?" }] },
        { role: "user", content: [{ type: "tool_result", callId: "call_2", isError: true, content: [{ type: "text", text: "no clock" }], cacheControl: { type: "ephemeral" } }] },
      ],
    }),
    {
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        {
          role: "assistant",
          content: [
            { type: "tool_use", id: "functions_get_weather_0", name: "get_weather", input: { city: "Paris" } },
            { type: "tool_use", id: "call_2", name: "get_time", input: {} },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "functions_get_weather_0", content: [{ type: "text", text: "Sunny" }, { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } }] },
            { type: "tool_result", tool_use_id: "call_2", content: [{ type: "text", text: "no clock" }], is_error: true, cache_control: { type: "ephemeral" } },
            { type: "text", text: "and?" },
          ],
        },
      ],
    },
  ],
  [
    "images: base64, URL (detail dropped), file; unsupported type dropped",
    req({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: PNG },
            { type: "image", source: { kind: "url", url: "https://x/a.jpg" }, detail: "high" },
            { type: "image", source: { kind: "file", fileId: "file_1" } },
            { type: "image", source: { kind: "base64", mediaType: "image/tiff", data: "AA" } },
          ],
        },
      ],
    }),
    {
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { type: "base64", media_type: "image/png", data: "iVBORw0KGgo=" } },
            { type: "image", source: { type: "url", url: "https://x/a.jpg" } },
            { type: "image", source: { type: "file", file_id: "file_1" } },
          ],
        },
      ],
    },
    ["image detail dropped", "image of type image/tiff dropped (Messages takes jpeg, png, gif, webp)"],
  ],
  [
    "documents: PDF, text, base64 text, filename as title; other types dropped",
    req({
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBERi0=" }, filename: "a.pdf" },
            { type: "document", source: { kind: "text", text: "plain" }, title: "T" },
            { type: "document", source: { kind: "base64", mediaType: "text/markdown", data: Buffer.from("# md").toString("base64") } },
            { type: "document", source: { kind: "base64", mediaType: "application/zip", data: "UEs=" } },
          ],
        },
      ],
    }),
    {
      messages: [
        {
          role: "user",
          content: [
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, title: "a.pdf" },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "plain" }, title: "T" },
            { type: "document", source: { type: "text", media_type: "text/plain", data: "# md" } },
          ],
        },
      ],
    },
    ["document of type application/zip dropped (Messages takes PDF and plain text)"],
  ],
  [
    "thinking: Messages signatures kept; Responses-packed and unsigned dropped; redacted kept; emptied turns vanish",
    req({
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        { role: "assistant", content: [{ type: "thinking", text: "foreign", signature: "rlr1.eyJpZCI6InJzXzEifQ" }] },
        { role: "assistant", content: [{ type: "thinking", text: "mine", signature: "sig==" }, { type: "redacted_thinking", data: "opaque" }, { type: "thinking", text: "chat" }, { type: "text", text: "a" }] },
      ],
    }),
    {
      messages: [
        { role: "user", content: [{ type: "text", text: "q" }] },
        { role: "assistant", content: [{ type: "thinking", thinking: "mine", signature: "sig==" }, { type: "redacted_thinking", data: "opaque" }, { type: "text", text: "a" }] },
      ],
    },
    ["reasoning from a Responses model dropped (it only goes back to that API)", "unsigned thinking dropped (Messages needs its signature)"],
  ],
  [
    "tools: function (schema gets type object), strict and cache control; Messages server tool as is; others flattened or dropped",
    req({
      tools: [
        { kind: "function", name: "f", description: "d", inputSchema: { properties: { a: { type: "string" } } }, strict: true, cacheControl: { type: "ephemeral" } },
        { kind: "builtin", format: "messages", type: "web_search_20250305", name: "web_search", raw: { type: "web_search_20250305", name: "web_search", max_uses: 2 } },
        { kind: "builtin", format: "responses", type: "web_search", raw: { type: "web_search", external_web_access: false } },
        {
          kind: "builtin",
          format: "responses",
          type: "namespace",
          name: "multi_agent_v1",
          raw: { type: "namespace", name: "multi_agent_v1", tools: [{ type: "function", name: "spawn", description: "Spawn", parameters: { type: "object" } }, { type: "custom", name: "free" }] },
        },
        { kind: "builtin", format: "chat", type: "custom", name: "grammar", raw: { type: "custom", custom: { name: "grammar" } } },
      ],
      toolChoice: { type: "required" },
      parallelToolCalls: false,
    }),
    {
      tools: [
        { name: "f", description: "d", input_schema: { type: "object", properties: { a: { type: "string" } } }, strict: true, cache_control: { type: "ephemeral" } },
        { type: "web_search_20250305", name: "web_search", max_uses: 2 },
        { name: "spawn", description: "Spawn", input_schema: { type: "object" } },
      ],
      tool_choice: { type: "any", disable_parallel_tool_use: true },
    },
    ["web_search tool web_search dropped (no Messages equivalent)", "namespace tool multi_agent_v1 flattened into 1 function tool(s)", "custom tool grammar dropped (no Messages equivalent)"],
  ],
  [
    "tool_choice forms",
    req({ tools: [{ kind: "function", name: "f", inputSchema: { type: "object" } }], toolChoice: { type: "tool", name: "f" } }),
    { tool_choice: { type: "tool", name: "f" } },
  ],
  ["tool_choice none drops the parallel flag", req({ tools: [{ kind: "function", name: "f", inputSchema: { type: "object" } }], toolChoice: { type: "none" }, parallelToolCalls: false }), { tool_choice: { type: "none" } }],
  ["parallel off without a choice", req({ tools: [{ kind: "function", name: "f", inputSchema: { type: "object" } }], parallelToolCalls: false }), { tool_choice: { type: "auto", disable_parallel_tool_use: true } }],
  ["a forced choice without tools is dropped", req({ toolChoice: { type: "required" } }), { model: "sim-normal" }, ["tool_choice dropped: no tools to call"]],
  [
    "structured output, stop, sampling, user id; OpenAI-only fields reported",
    req({
      responseFormat: { type: "json_schema", name: "answer", schema: { type: "object", properties: {} }, strict: true },
      stop: ["END"],
      sampling: { temperature: 1.4, topP: 0.9, presencePenalty: 0.1, frequencyPenalty: 0.2, seed: 7 },
      user: "u-1",
      metadata: { team: "a" },
      previousResponseId: "resp_1",
      extra: { store: false, prompt_cache_key: "k" },
    }),
    {
      output_config: { format: { type: "json_schema", schema: { type: "object", properties: {} } } },
      stop_sequences: ["END"],
      temperature: 1,
      top_p: 0.9,
      metadata: { user_id: "u-1" },
    },
    [
      "metadata dropped (Messages takes only a user id)",
      "previous_response_id dropped: the stored conversation needs a Responses upstream",
      "temperature 1.4 lowered to 1 (Messages range is 0-1)",
      "presence_penalty dropped (no Messages equivalent)",
      "frequency_penalty dropped (no Messages equivalent)",
      "seed dropped (no Messages equivalent)",
    ],
  ],
  ["json_object has no Messages equivalent", req({ responseFormat: { type: "json_object" } }), { model: "sim-normal" }, ["response_format json_object dropped (Messages has only JSON-schema output)"]],
  ["arguments that are not an object become {}", req({ messages: [{ role: "assistant", content: [{ type: "tool_call", id: "a", name: "b", arguments: "[1]" }] }] }), { messages: [{ role: "assistant", content: [{ type: "tool_use", id: "a", name: "b", input: {} }] }] }, ["tool call b: arguments are not a JSON object, sent as {}"]],
];

describe("encodeMessagesRequest", () => {
  test.each(cases)("%s", (_name, request, expected, warnings = []) => {
    const { value, warnings: got } = encodeMessagesRequest(request, CTX);
    expect(value).toMatchObject(expected);
    expect(got).toEqual(warnings);
  });

  test("extra fields of other formats are never sent", () => {
    const { value } = encodeMessagesRequest(req({ extra: { store: false, include: ["reasoning.encrypted_content"], n: 1 } }), CTX);
    expect(Object.keys(value).sort()).toEqual(["max_tokens", "messages", "model", "stream", "thinking"]);
  });
});

describe("Messages decode → encode round trip", () => {
  test("a representative Claude Code-like body keeps its meaning", () => {
    const body = {
      model: "normal",
      max_tokens: 32000,
      stream: true,
      system: [
        { type: "text", text: "billing header" },
        { type: "text", text: "You are an agent.", cache_control: { type: "ephemeral" } },
      ],
      tools: [{ name: "Bash", description: "Run a command", input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] }, cache_control: { type: "ephemeral" } }],
      tool_choice: { type: "auto", disable_parallel_tool_use: true },
      stop_sequences: ["<END>"],
      temperature: 0.7,
      metadata: { user_id: "user-1" },
      output_config: { format: { type: "json_schema", schema: { type: "object" } } },
      messages: [
        { role: "user", content: [{ type: "text", text: "List files" }, { type: "image", source: { type: "url", url: "https://x/a.png" } }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", thinking: "Use ls.", signature: "sig==" },
            { type: "redacted_thinking", data: "opaque" },
            { type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "ls" } },
            { type: "tool_use", id: "toolu_2", name: "Bash", input: { command: "pwd" } },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", tool_use_id: "toolu_1", content: "a.txt", is_error: false },
            { type: "tool_result", tool_use_id: "toolu_2", content: [{ type: "text", text: "denied" }], is_error: true, cache_control: { type: "ephemeral" } },
            { type: "document", source: { type: "base64", media_type: "application/pdf", data: "JVBERi0=" }, title: "Doc" },
          ],
        },
      ],
    };
    const decoded = decodeMessagesRequest(body);
    const { value, warnings } = encodeMessagesRequest(decoded.value, { ...CTX, upstreamModelId: "claude-x" });
    expect(warnings).toEqual([]);
    const normalized = JSON.parse(JSON.stringify(body)) as Record<string, unknown>;
    // The only rewrites: the model id, string contents as text blocks, is_error only when true.
    normalized.model = "claude-x";
    normalized.thinking = { type: "adaptive", display: "summarized" };
    const messages = normalized.messages as { content: Record<string, unknown>[] }[];
    const results = messages[2]!.content;
    results[0] = { type: "tool_result", tool_use_id: "toolu_1", content: [{ type: "text", text: "a.txt" }] };
    expect(value).toEqual(normalized);
  });
});
