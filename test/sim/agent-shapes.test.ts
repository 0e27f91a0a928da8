import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { postJson } from "./sim-fixture.ts";

// Shapes coding agents send: trailing system/developer instructions after the user turn (Claude
// Code's mid-conversation system message, and its translations) and context blocks in the user turn.
let sim: SimServer;

beforeAll(async () => {
  sim = await startSim();
}, 30_000);
afterAll(() => sim.stop(), 30_000);

const bashTool = { name: "Bash", description: "Run a command", input_schema: { type: "object", properties: { command: { type: "string" } }, required: ["command"] } };
/** Claude Code's reminder and Codex's environment context, as a translation may merge them into the user turn. */
const REMINDER =
  "<system-reminder>\nRead the notes; Bash is available.\n</system-reminder>\n<environment_context>\n  <cwd>/repo</cwd>\n  <shell>bash</shell>\n</environment_context>";

interface Case {
  readonly name: string;
  readonly path: string;
  readonly body: (userText: string, toolResult: string | null) => unknown;
  readonly text: (json: unknown) => string;
  readonly calls: (json: unknown) => string[];
}

type Json = Record<string, unknown>;
const field = (value: unknown, ...keys: (string | number)[]): unknown =>
  keys.reduce<unknown>((at, key) => (typeof at === "object" && at !== null ? (at as Json)[key] : undefined), value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

const CASES: readonly Case[] = [
  {
    name: "Messages",
    path: "/v1/messages",
    body: (userText, toolResult) => ({
      model: "m",
      max_tokens: 1000,
      tools: [bashTool],
      messages: [
        { role: "user", content: [{ type: "text", text: REMINDER }, { type: "text", text: userText }] },
        ...(toolResult === null
          ? []
          : [
              { role: "assistant", content: [{ type: "tool_use", id: "toolu_1", name: "Bash", input: { command: "echo hi" } }] },
              { role: "user", content: [{ type: "tool_result", tool_use_id: "toolu_1", content: toolResult }] },
            ]),
        { role: "system", content: "Agents: Explore, Plan. Use Bash when asked." },
      ],
    }),
    text: (json) => list(field(json, "content")).map((b) => String(field(b, "text") ?? "")).join(""),
    calls: (json) => list(field(json, "content")).filter((b) => field(b, "type") === "tool_use").map((b) => String(field(b, "name"))),
  },
  {
    name: "Chat Completions",
    path: "/v1/chat/completions",
    body: (userText, toolResult) => ({
      model: "m",
      tools: [{ type: "function", function: { name: bashTool.name, parameters: bashTool.input_schema } }],
      messages: [
        { role: "user", content: `${REMINDER}\n${userText}` },
        ...(toolResult === null
          ? []
          : [
              { role: "assistant", content: null, tool_calls: [{ id: "call_1", type: "function", function: { name: "Bash", arguments: "{}" } }] },
              { role: "tool", tool_call_id: "call_1", content: toolResult },
            ]),
        { role: "system", content: "Agents: Explore, Plan. Use Bash when asked." },
      ],
    }),
    text: (json) => String(field(json, "choices", 0, "message", "content") ?? ""),
    calls: (json) => list(field(json, "choices", 0, "message", "tool_calls")).map((c) => String(field(c, "function", "name"))),
  },
  {
    name: "Responses",
    path: "/v1/responses",
    body: (userText, toolResult) => ({
      model: "m",
      tools: [{ type: "function", name: bashTool.name, parameters: bashTool.input_schema }],
      input: [
        { type: "message", role: "user", content: [{ type: "input_text", text: REMINDER }, { type: "input_text", text: userText }] },
        ...(toolResult === null
          ? []
          : [
              { type: "function_call", call_id: "call_1", name: "Bash", arguments: "{}" },
              { type: "function_call_output", call_id: "call_1", output: toolResult },
            ]),
        { type: "message", role: "developer", content: [{ type: "input_text", text: "Agents: Explore, Plan. Use Bash when asked." }] },
      ],
    }),
    text: (json) =>
      list(field(json, "output"))
        .filter((item) => field(item, "type") === "message")
        .map((item) => String(field(item, "content", 0, "text") ?? ""))
        .join(""),
    calls: (json) => list(field(json, "output")).filter((item) => field(item, "type") === "function_call").map((item) => String(field(item, "name"))),
  },
];

describe("coding-agent request shapes", () => {
  for (const c of CASES) {
    test(`${c.name}: trailing instructions do not hide the user turn; agent context is not quoted`, async () => {
      const res = await postJson(sim, c.path, c.body("Hello from the agent", null));
      expect(res.status).toBe(200);
      expect(c.text(res.json)).toStartWith("Simulated reply from m: Hello from the agent");
      expect(c.calls(res.json)).toEqual([]);
    });

    test(`${c.name}: a directive in the user turn calls the tool despite trailing instructions`, async () => {
      const res = await postJson(sim, c.path, c.body('Run it [sim tool=Bash args={"command":"echo ok"}]', null));
      expect(res.status).toBe(200);
      expect(c.calls(res.json)).toEqual(["Bash"]);
    });

    test(`${c.name}: a tool result followed by instructions ends the loop`, async () => {
      const res = await postJson(sim, c.path, c.body("Run it", "marker-42"));
      expect(res.status).toBe(200);
      expect(c.text(res.json)).toBe("Tool result received: marker-42");
      expect(c.calls(res.json)).toEqual([]);
    });
  }
});
