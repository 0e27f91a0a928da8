import { describe, expect, test } from "bun:test";
import type { CanonicalRequest } from "../../../src/canonical/request.ts";
import { DEFAULT_CONFIG } from "../../../src/config/default-config.ts";
import { packResponsesReasoning } from "../../../src/wire/pack-reasoning.ts";
import { encodeResponsesRequest } from "../../../src/wire/responses/encode-request.ts";
import type { UpstreamRequestContext } from "../../../src/wire/upstream-adapter.ts";

const model = DEFAULT_CONFIG.models["sim-normal"]!;
const ctx: UpstreamRequestContext = { upstreamModelId: "gpt-up", model };
const plainCtx: UpstreamRequestContext = { upstreamModelId: "gpt-plain", model: { ...model, thinking: "none" } };

const request = (over: Partial<CanonicalRequest>): CanonicalRequest => ({
  system: [],
  messages: [{ role: "user", content: [{ type: "text", text: "Hi" }] }],
  tools: [],
  sampling: {},
  stop: [],
  stream: false,
  extra: {},
  ...over,
});

const cases: { name: string; request: CanonicalRequest; ctx?: UpstreamRequestContext; expect: Record<string, unknown>; absent?: string[]; warnings?: RegExp[] }[] = [
  {
    name: "basic text, system as instructions, stateless with encrypted reasoning",
    request: request({ system: [{ type: "text", text: "A" }, { type: "text", text: "B", cacheControl: { type: "ephemeral" } }], stream: true }),
    expect: {
      model: "gpt-up",
      instructions: "A\n\nB",
      input: [{ type: "message", role: "user", content: [{ type: "input_text", text: "Hi" }] }],
      stream: true,
      store: false,
      reasoning: { summary: "auto" },
      include: ["reasoning.encrypted_content"],
    },
    warnings: [/cache_control/],
  },
  {
    name: "a model without reasoning gets no reasoning fields",
    request: request({}),
    ctx: plainCtx,
    expect: { model: "gpt-plain", store: false },
    absent: ["reasoning", "include", "instructions", "tools", "tool_choice"],
  },
  {
    name: "images (base64, URL, file) and documents",
    request: request({
      messages: [
        {
          role: "user",
          content: [
            { type: "image", source: { kind: "base64", mediaType: "image/jpeg", data: "/9j/" } },
            { type: "image", source: { kind: "url", url: "https://x/y.png" }, detail: "low" },
            { type: "image", source: { kind: "file", fileId: "file-1" } },
            { type: "document", source: { kind: "base64", mediaType: "application/pdf", data: "JVBE" }, title: "Spec" },
            { type: "document", source: { kind: "text", text: "plain body" }, title: "Notes" },
          ],
        },
      ],
    }),
    expect: {
      input: [
        {
          type: "message",
          role: "user",
          content: [
            { type: "input_image", image_url: "data:image/jpeg;base64,/9j/", detail: "auto" },
            { type: "input_image", image_url: "https://x/y.png", detail: "low" },
            { type: "input_image", file_id: "file-1", detail: "auto" },
            { type: "input_file", file_data: "data:application/pdf;base64,JVBE", filename: "Spec" },
            { type: "input_text", text: "Notes\n\nplain body" },
          ],
        },
      ],
    },
  },
  {
    name: "tool loop: thinking (rlr1) back as reasoning, parallel calls, results with error flag and image",
    request: request({
      messages: [
        { role: "user", content: [{ type: "text", text: "Go" }] },
        {
          role: "assistant",
          content: [
            { type: "thinking", text: "plan", signature: packResponsesReasoning({ id: "rs_1", encryptedContent: "enc" }) },
            { type: "thinking", text: "foreign", signature: "anthropic-sig" },
            { type: "redacted_thinking", data: "zzz" },
            { type: "text", text: "Calling." },
            { type: "tool_call", id: "call_a", name: "f", arguments: '{"x":1}' },
            { type: "tool_call", id: "call_b", name: "g", arguments: "{}" },
          ],
        },
        {
          role: "user",
          content: [
            { type: "tool_result", callId: "call_a", content: [{ type: "text", text: "boom" }], isError: true },
            { type: "tool_result", callId: "call_b", content: [{ type: "text", text: "pic" }, { type: "image", source: { kind: "url", url: "https://x/p.png" } }], isError: false },
            { type: "text", text: "continue" },
          ],
        },
        { role: "system", content: [{ type: "text", text: "late rule" }], developer: true },
      ],
    }),
    expect: {
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: "Go" }] },
        { type: "reasoning", id: "rs_1", summary: [{ type: "summary_text", text: "plan" }], encrypted_content: "enc" },
        { type: "message", role: "assistant", content: [{ type: "output_text", text: "Calling.", annotations: [] }] },
        { type: "function_call", call_id: "call_a", name: "f", arguments: '{"x":1}' },
        { type: "function_call", call_id: "call_b", name: "g", arguments: "{}" },
        { type: "function_call_output", call_id: "call_a", output: "Error: boom" },
        {
          type: "function_call_output",
          call_id: "call_b",
          output: [{ type: "input_text", text: "pic" }, { type: "input_image", image_url: "https://x/p.png", detail: "auto" }],
        },
        { type: "message", role: "user", content: [{ type: "input_text", text: "continue" }] },
        { type: "message", role: "developer", content: [{ type: "input_text", text: "late rule" }] },
      ],
    },
    warnings: [/thinking from another API/, /redacted_thinking/],
  },
  {
    name: "tools: function (strict false by default), builtins from other formats flattened or dropped; choice and parallel flag",
    request: request({
      tools: [
        { kind: "function", name: "f", description: "d", inputSchema: { type: "object" } },
        { kind: "function", name: "s", inputSchema: { type: "object" }, strict: true },
        { kind: "builtin", format: "messages", type: "custom_thing", name: "flat", raw: { name: "flat", input_schema: { type: "object", properties: {} }, description: "dd" } },
        { kind: "builtin", format: "messages", type: "web_search_20250305", name: "web_search", raw: { type: "web_search_20250305", name: "web_search" } },
        { kind: "builtin", format: "responses", type: "web_search", raw: { type: "web_search", external_web_access: false } },
      ],
      toolChoice: { type: "tool", name: "f" },
      parallelToolCalls: false,
    }),
    expect: {
      tools: [
        { type: "function", name: "f", description: "d", parameters: { type: "object" }, strict: false },
        { type: "function", name: "s", parameters: { type: "object" }, strict: true },
        { type: "function", name: "flat", description: "dd", parameters: { type: "object", properties: {} }, strict: false },
        { type: "web_search", external_web_access: false },
      ],
      tool_choice: { type: "function", name: "f" },
      parallel_tool_calls: false,
    },
    warnings: [/flat .* plain function/, /web_search .* dropped/],
  },
  {
    name: "a forced tool that was dropped becomes required; a schema format without a usable name gets one",
    request: request({
      tools: [
        { kind: "function", name: "f", inputSchema: {} },
        { kind: "builtin", format: "messages", type: "web_search_20250305", name: "web_search", raw: { type: "web_search_20250305" } },
      ],
      toolChoice: { type: "tool", name: "web_search" },
      responseFormat: { type: "json_schema", name: "", schema: { type: "object" } },
    }),
    expect: { tool_choice: "required", text: { format: { type: "json_schema", name: "output", schema: { type: "object" } } } },
    warnings: [/dropped/, /not sent as a function tool/],
  },
  {
    name: "tool_choice required / auto pass as strings",
    request: request({ tools: [{ kind: "function", name: "f", inputSchema: {} }], toolChoice: { type: "required" } }),
    expect: { tool_choice: "required" },
  },
  {
    name: "limits, sampling, stop, structured output, user and metadata",
    request: request({
      maxOutputTokens: 8,
      sampling: { temperature: 0.5, topP: 0.8, topK: 5, seed: 1 },
      stop: ["END"],
      responseFormat: { type: "json_schema", name: "answer", schema: { type: "object" }, strict: true, description: "d" },
      user: "u-1",
      metadata: { k: "v" },
      extra: { prompt_cache_key: "pck", text: { verbosity: "high" }, context_management: { edits: [] } },
    }),
    expect: {
      max_output_tokens: 16,
      temperature: 0.5,
      top_p: 0.8,
      text: { format: { type: "json_schema", name: "answer", schema: { type: "object" }, description: "d", strict: true }, verbosity: "high" },
      safety_identifier: "u-1",
      metadata: { k: "v" },
      prompt_cache_key: "pck",
    },
    absent: ["stop", "top_k", "seed", "context_management"],
    warnings: [/topK, seed/, /stop sequences/, /minimum of 16/],
  },
  {
    name: "a model without vision or tools: images and tool definitions dropped; output cap lowered to the model's limit",
    request: request({
      messages: [
        {
          role: "user",
          content: [
            { type: "text", text: "look" },
            { type: "image", source: { kind: "url", url: "https://x/a.png" } },
            { type: "tool_result", callId: "c", content: [{ type: "image", source: { kind: "url", url: "https://x/b.png" } }], isError: false },
          ],
        },
      ],
      tools: [{ kind: "function", name: "f", inputSchema: {} }],
      toolChoice: { type: "auto" },
      maxOutputTokens: 999_999,
    }),
    ctx: { upstreamModelId: "tiny", model: { ...model, vision: false, tools: false, maxOutputTokens: 4096 } },
    expect: {
      input: [{ type: "function_call_output", call_id: "c", output: "" }, { type: "message", role: "user", content: [{ type: "input_text", text: "look" }] }],
      max_output_tokens: 4096,
    },
    absent: ["tools", "tool_choice"],
    warnings: [/2 image/, /no tools/, /lowered to the model's limit of 4096/],
  },
  {
    name: "a call whose arguments never streamed is sent as {}",
    request: request({
      messages: [
        { role: "user", content: [{ type: "text", text: "go" }] },
        { role: "assistant", content: [{ type: "tool_call", id: "c1", name: "noargs", arguments: "" }] },
      ],
    }),
    expect: { input: [{ type: "message" }, { type: "function_call", call_id: "c1", name: "noargs", arguments: "{}" }] },
  },
  {
    name: "a long user id (Claude Code's JSON metadata) is sent hashed",
    request: request({ user: JSON.stringify({ device_id: "d".repeat(40), account_uuid: "a".repeat(36), session_id: "s" }) }),
    expect: {},
    warnings: [/hashed/],
  },
];

describe("encodeResponsesRequest", () => {
  for (const c of cases) {
    test(c.name, () => {
      const { value, warnings } = encodeResponsesRequest(c.request, c.ctx ?? ctx);
      expect(value).toMatchObject(c.expect);
      for (const key of c.absent ?? []) expect(value).not.toHaveProperty(key);
      expect(warnings).toHaveLength(c.warnings?.length ?? 0);
      for (const [i, pattern] of (c.warnings ?? []).entries()) expect(warnings[i]).toMatch(pattern);
    });
  }

  test("hashed safety_identifier is 64 hex characters and stable", () => {
    const user = "x".repeat(100);
    const first = encodeResponsesRequest(request({ user }), ctx).value.safety_identifier;
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(encodeResponsesRequest(request({ user }), ctx).value.safety_identifier).toBe(first);
  });
});
