import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { clientsFor } from "./sim-fixture.ts";

/**
 * Agents work offline: asked in plain words to run a back-ticked command, the simulated model
 * calls the agent's own shell tool with that command, in each agent's tool shape and each API.
 */

let sim: SimServer;
let clients: ReturnType<typeof clientsFor>;
beforeAll(async () => {
  sim = await startSim();
  clients = clientsFor(sim);
});
afterAll(() => sim.stop());

type Schema = Record<string, unknown>;
const object = (properties: Record<string, Schema>, required: string[]): Schema => ({ type: "object", properties, required });

/** The shell tools the agents send (their relevant part), and a tool of no agent that takes a `cmd`. */
const SHELL_TOOLS: ReadonlyArray<readonly [string, string, Schema, (command: string) => Record<string, unknown>]> = [
  ["Claude Code", "Bash", object({ command: { type: "string" }, description: { type: "string" }, timeout: { type: "number" } }, ["command"]), (c) => ({ command: c })],
  ["Codex", "exec_command", object({ cmd: { type: "string" }, workdir: { type: "string" }, yield_time_ms: { type: "number" } }, ["cmd"]), (c) => ({ cmd: c })],
  ["Codex (argument list)", "shell", object({ command: { type: "array", items: { type: "string" } }, workdir: { type: "string" } }, ["command"]), (c) => ({ command: ["bash", "-lc", c] })],
  ["pi", "bash", object({ command: { type: "string" }, timeout: { type: "number" } }, ["command"]), (c) => ({ command: c })],
  ["any tool with a cmd", "terminal_run", object({ cmd: { type: "string" }, cwd: { type: "string" } }, ["cmd", "cwd"]), (c) => ({ cmd: c, cwd: "sim_cwd" })],
];

const weather = { name: "get_weather", parameters: object({ city: { type: "string" } }, ["city"]) };

async function chatCalls(text: string, tools: ReadonlyArray<{ name: string; parameters: Schema }>, toolChoice?: "none") {
  const answer = await clients.openai.chat.completions.create({
    model: "m",
    messages: [{ role: "user", content: text }],
    tools: tools.map((t) => ({ type: "function" as const, function: t })),
    ...(toolChoice ? { tool_choice: toolChoice } : {}),
  });
  const message = answer.choices[0]!.message;
  return (message.tool_calls ?? []).map((call) => (call.type === "function" ? [call.function.name, JSON.parse(call.function.arguments)] : []));
}

describe("a back-ticked command the user asks to run", () => {
  test.each(SHELL_TOOLS)("%s: the %s tool is called with that command", async (_agent, name, parameters, args) => {
    const calls = await chatCalls("Please run `ls -la src | head -3` and tell me what you see", [weather, { name, parameters }]);
    expect(calls).toEqual([[name, args("ls -la src | head -3")]]);
  });

  test("the agent's own shell tool wins over another tool that takes a command", async () => {
    const calls = await chatCalls("execute `pwd`", [SHELL_TOOLS[4]!, SHELL_TOOLS[0]!].map(([, name, parameters]) => ({ name, parameters })));
    expect(calls).toEqual([["Bash", { command: "pwd" }]]);
  });

  test.each([
    ["no back-ticked command", "Please run the tests"],
    ["back-ticks but no ask to run", "What does `ls` print?"],
  ])("%s: no call", async (_what, text) => {
    expect(await chatCalls(text, [{ name: "Bash", parameters: SHELL_TOOLS[0]![2] }])).toEqual([]);
  });

  test("no shell-like tool offered, or tool_choice none: no call", async () => {
    expect(await chatCalls("Run `date`", [weather])).toEqual([]);
    expect(await chatCalls("Run `date`", [{ name: "Bash", parameters: SHELL_TOOLS[0]![2] }], "none")).toEqual([]);
  });

  test("Messages and Responses call it too; the tool's result is answered with a quote of it", async () => {
    const [, name, schema] = SHELL_TOOLS[0]!;
    const first = await clients.anthropic.messages.create({
      model: "m",
      max_tokens: 500,
      tools: [{ name, input_schema: schema as { type: "object" } }],
      messages: [{ role: "user", content: "Run `echo sim-$((6*7))` please" }],
    });
    const use = first.content.find((b) => b.type === "tool_use");
    expect(use).toMatchObject({ name: "Bash", input: { command: "echo sim-$((6*7))" } });
    expect(first.stop_reason).toBe("tool_use");
    const second = await clients.anthropic.messages.create({
      model: "m",
      max_tokens: 500,
      tools: [{ name, input_schema: schema as { type: "object" } }],
      messages: [
        { role: "user", content: "Run `echo sim-$((6*7))` please" },
        { role: "assistant", content: first.content },
        { role: "user", content: [{ type: "tool_result", tool_use_id: use!.type === "tool_use" ? use!.id : "", content: "sim-42\n" }] },
      ],
    });
    expect(second.content.find((b) => b.type === "text")).toMatchObject({ text: "Tool result received: sim-42\n" });

    const [, codexName, codexSchema] = SHELL_TOOLS[1]!;
    const response = await clients.openai.responses.create({
      model: "m",
      tools: [{ type: "function", name: codexName, parameters: codexSchema, strict: false }],
      input: "Run `git status` for me",
    });
    const call = response.output.find((item) => item.type === "function_call");
    expect(call && call.type === "function_call" ? [call.name, JSON.parse(call.arguments)] : null).toEqual(["exec_command", { cmd: "git status" }]);
  });
});
