import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WIRE_FORMATS, type WireFormat } from "../../src/canonical/wire-format.ts";
import { SAME_FORMAT_CONFIG, UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { RUN_TESTS } from "./drive-sdk-conversation.ts";
import { post, routeOf, simMark, startRoutingGateway, type RoutingGateway } from "./start-routing-gateway.ts";

/**
 * Escalation in one agent loop: tool results that show struggle (failing tests, a compiler
 * error, an error flag) raise `x-router-effort` one step per turn up to the tier's ceiling, and
 * results that show progress bring it back down, never below the class's effort. The task is a
 * chore on `normal` (effort `low`, ceiling `high`, two steps at most by the built-in config).
 * The sim never calls a tool after a tool result, so the agent's later calls are written here,
 * as a real model would have made them; the gateway only reads the history. Every model speaks
 * every API, so no translation turns thinking off for a history without thinking blocks.
 */
let gw: RoutingGateway;

beforeAll(async () => {
  gw = await startRoutingGateway({ ...SAME_FORMAT_CONFIG, routing: UNCACHED_CONFIG.routing! });
}, 60_000);

/** The effort the upstream was asked for, in each API's own field. */
function sentEffort(format: WireFormat, body: Record<string, unknown>): unknown {
  if (format === "messages") return (body.output_config as { effort?: string } | undefined)?.effort;
  if (format === "chat") return body.reasoning_effort;
  return (body.reasoning as { effort?: string } | undefined)?.effort;
}
afterAll(() => gw.stop(), 30_000);

interface Step {
  readonly callId: string;
  readonly path: string;
  readonly result: string;
  readonly isError?: boolean;
}

const tools: Record<WireFormat, unknown[]> = {
  messages: [{ name: RUN_TESTS.name, description: RUN_TESTS.description, input_schema: RUN_TESTS.schema }],
  chat: [{ type: "function", function: { name: RUN_TESTS.name, description: RUN_TESTS.description, parameters: RUN_TESTS.schema } }],
  responses: [{ type: "function", name: RUN_TESTS.name, description: RUN_TESTS.description, parameters: RUN_TESTS.schema, strict: false }],
};

/** The loop so far as `format` writes it: the task, then per step the agent's call and its result. */
function loopBody(format: WireFormat, task: string, steps: readonly Step[]): Record<string, unknown> {
  const args = (s: Step) => JSON.stringify({ path: s.path });
  if (format === "messages") {
    const messages: unknown[] = [{ role: "user", content: task }];
    for (const s of steps) {
      messages.push({ role: "assistant", content: [{ type: "tool_use", id: s.callId, name: RUN_TESTS.name, input: { path: s.path } }] });
      messages.push({ role: "user", content: [{ type: "tool_result", tool_use_id: s.callId, content: s.result, is_error: s.isError ?? false }] });
    }
    return { model: "normal", max_tokens: 1024, tools: tools.messages, messages };
  }
  if (format === "chat") {
    const messages: unknown[] = [{ role: "user", content: task }];
    for (const s of steps) {
      messages.push({ role: "assistant", content: null, tool_calls: [{ id: s.callId, type: "function", function: { name: RUN_TESTS.name, arguments: args(s) } }] });
      messages.push({ role: "tool", tool_call_id: s.callId, content: s.result });
    }
    return { model: "normal", tools: tools.chat, messages };
  }
  const input: unknown[] = [{ role: "user", content: task }];
  for (const s of steps) {
    input.push({ type: "function_call", call_id: s.callId, name: RUN_TESTS.name, arguments: args(s) });
    input.push({ type: "function_call_output", call_id: s.callId, output: s.result });
  }
  return { model: "normal", tools: tools.responses, input, store: false };
}

/** Each result and the effort the turn carrying it must run at. */
const RUN: readonly (readonly [string, string, boolean?])[] = [
  ["3 tests failed, 9 passed", "medium"],
  ["src/config.ts:4:7 - error TS2304: Cannot find name 'loadConfg'.", "high"],
  // Already at the ceiling: a third struggle keeps it there.
  ["FAILED tests/test_config.py::test_load - AssertionError", "high"],
  ["all tests passed", "medium"],
  ["12 passed in 0.8s", "low"],
  // Never below the class's own effort.
  ["12 passed in 0.7s", "low"],
];

describe.each(WIRE_FORMATS)("%s client", (format) => {
  test("struggle raises the effort one step per turn up to the ceiling; success brings it back down", async () => {
    const task = `Rename loadConfig to readConfig everywhere (${format})`;
    const first = await post(gw, format, loopBody(format, task, []));
    expect(first.status).toBe(200);
    await first.text();
    expect(routeOf(first)).toMatchObject({ source: "rule", effort: "low" });
    const model = routeOf(first).model;

    const steps: Step[] = [];
    for (const [i, [result, effort]] of RUN.entries()) {
      steps.push({ callId: `call_${format}_${i}`, path: `src/step${i}`, result });
      const mark = simMark(gw);
      const response = await post(gw, format, loopBody(format, task, steps));
      expect(response.status).toBe(200);
      expect(await response.text()).toContain("Tool result received");
      expect({ step: i, ...routeOf(response) }).toEqual({ step: i, source: "continuation", model, effort });
      expect(sentEffort(format, gw.gateway.sim!.received[mark]!.body as Record<string, unknown>)).toBe(effort);
    }
  }, 30_000);
});

describe("Messages client", () => {
  const task = "Rename the cache module to store";

  test("an error flag on a tool result is struggle; a retried request is not counted twice", async () => {
    const first = await post(gw, "messages", loopBody("messages", task, []));
    expect(routeOf(first)).toMatchObject({ source: "rule", effort: "low" });
    await first.text();
    const steps: Step[] = [{ callId: "toolu_flag_1", path: "src", result: "exit status 0", isError: true }];
    const flagged = await post(gw, "messages", loopBody("messages", task, steps));
    await flagged.text();
    expect(routeOf(flagged)).toMatchObject({ source: "continuation", effort: "medium" });

    // The client retries the very same request (a timeout on its side): no second step.
    const mark = simMark(gw);
    const retried = await post(gw, "messages", loopBody("messages", task, steps));
    await retried.text();
    expect(routeOf(retried)).toMatchObject({ source: "continuation", effort: "medium" });
    // The upstream was asked for that effort too.
    expect(sentEffort("messages", gw.gateway.sim!.received[mark]!.body as Record<string, unknown>)).toBe("medium");
  });

  test("the same tool call repeated with the same arguments is struggle, even with a neutral result", async () => {
    const task2 = "Rename the queue module to jobs";
    await (await post(gw, "messages", loopBody("messages", task2, []))).text();
    const steps: Step[] = [{ callId: "toolu_rep_1", path: "src/queue", result: "queue.ts jobs.ts" }];
    const once = await post(gw, "messages", loopBody("messages", task2, steps));
    await once.text();
    expect(routeOf(once)).toMatchObject({ effort: "low" });
    steps.push({ callId: "toolu_rep_2", path: "src/queue", result: "queue.ts jobs.ts" });
    const twice = await post(gw, "messages", loopBody("messages", task2, steps));
    await twice.text();
    expect(routeOf(twice)).toMatchObject({ source: "continuation", effort: "medium" });
  });
});
