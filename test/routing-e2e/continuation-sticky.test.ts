import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type OpenAI from "openai";
import { WIRE_FORMATS } from "../../src/canonical/wire-format.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { RUN_TESTS, startSdkConversation } from "./drive-sdk-conversation.ts";
import { FIRST, SECOND, routeOf, sdkClients, startRoutingGateway, twoModelConfig, type RoutingGateway } from "./start-routing-gateway.ts";

/**
 * A real agent loop through the official SDKs, on the built-in `normal` tier (a Messages model
 * first, a Responses model second, so the Chat and Responses clients cross formats): the first
 * turn is classified, the tool-result turn continues on the same model and effort without being
 * classified again, and a new user turn stays on the pinned model (`sticky`) at the effort of its
 * own class.
 */
let gw: RoutingGateway;

beforeAll(async () => {
  gw = await startRoutingGateway(UNCACHED_CONFIG);
}, 60_000);
afterAll(() => gw.stop(), 30_000);

describe.each(WIRE_FORMATS)("%s SDK", (format) => {
  test.each([false, true])("stream=%p: rule → continuation → sticky", async (stream) => {
    const chat = startSdkConversation(gw, format, stream);
    // "bug" makes it a debugging task; each conversation has a first message of its own.
    const first = await chat.say(`Find the bug that breaks the parser (${format}, stream ${stream}) [sim tool=${RUN_TESTS.name} args={"path":"src"}]`);
    expect(first).toMatchObject({ source: "rule", effort: "high" });
    expect(first.callIds).toHaveLength(1);
    const pinned = first.model;

    const second = await chat.reply([{ text: "the parser reads src/parse.ts line by line" }]);
    // A Chat client cannot send thinking back, and a Messages model with thinking on refuses a
    // tool loop without it: the gateway sends (and reports) effort `off` for that one turn.
    const thinkingDropped = format === "chat" && pinned === "sim-normal";
    expect(second).toMatchObject({ source: "continuation", model: pinned, effort: thinkingDropped ? "off" : first.effort });
    expect(second.text).toStartWith("Tool result received:");

    // A chore by the rules (low effort on `normal`), but the conversation stays on its model.
    const third = await chat.say("Thanks, now write a one line summary of the fix");
    expect(third).toMatchObject({ source: "sticky", model: pinned, effort: "low" });
    expect(third.callIds).toEqual([]);
  }, 30_000);
});

describe.each(WIRE_FORMATS)("%s SDK, after a failover", (format) => {
  test("the conversation stays on the model that answered, not the one the classifier prefers", async () => {
    const chat = startSdkConversation(gw, format, false);
    const failFirst = { "x-sim-fault": "status=529; model=sim-normal" };
    const first = await chat.say(`Find the bug in the lexer (${format}) [sim tool=${RUN_TESTS.name} args={"path":"lib"}]`, failFirst);
    expect(first).toMatchObject({ source: "rule", model: "sim-normal-b", effort: "high" });

    // sim-normal answers again from here on; the pin keeps the loop where it is.
    const second = await chat.reply([{ text: "the lexer is in lib/lex.ts" }]);
    expect(second).toMatchObject({ source: "continuation", model: "sim-normal-b", effort: "high" });
    const third = await chat.say("Thanks, now write a one line summary of the fix");
    expect(third).toMatchObject({ source: "sticky", model: "sim-normal-b", effort: "low" });

    // The same words in a new conversation go where the classifier sends them.
    const fresh = await startSdkConversation(gw, format, false).say(`Find the bug in the lexer (${format}) [sim tool=${RUN_TESTS.name} args={"path":"lib"}]`, {
      "x-session-id": `fresh-${format}`,
    });
    expect(fresh).toMatchObject({ source: "rule", model: "sim-normal" });
  }, 30_000);
});

describe("responses SDK chaining with previous_response_id", () => {
  let chained: RoutingGateway;
  beforeAll(async () => {
    // Both models speak Responses: the chained history lives at a Responses upstream.
    chained = await startRoutingGateway(twoModelConfig({ apis: [["responses"], ["responses"]] }));
  }, 60_000);
  afterAll(() => chained.stop(), 30_000);

  test.each([false, true])("stream=%p: the turns that carry only the new input stay in the conversation", async (stream) => {
    const { openai } = sdkClients(chained);
    const tools: OpenAI.Responses.FunctionTool[] = [{ type: "function", name: RUN_TESTS.name, description: RUN_TESTS.description, parameters: RUN_TESTS.schema, strict: false }];
    const send = async (body: OpenAI.Responses.ResponseCreateParamsNonStreaming, headers: Record<string, string> = {}) => {
      if (!stream) {
        const { data, response } = await openai.responses.create(body, { headers }).withResponse();
        return { answer: data, route: routeOf(response) };
      }
      const { data, response } = await openai.responses.create({ ...body, stream: true }, { headers }).withResponse();
      let answer: OpenAI.Responses.Response | undefined;
      for await (const event of data) if (event.type === "response.completed") answer = event.response;
      return { answer: answer!, route: routeOf(response) };
    };
    // The first model fails once: only the pin can bring the later turns to the second.
    const first = await send(
      { model: "normal", tools, input: `Find the bug in the tokenizer (stream ${stream}) [sim tool=${RUN_TESTS.name} args={"path":"tok"}]` },
      { "x-sim-fault": `status=503; model=${FIRST}` },
    );
    expect(first.route).toMatchObject({ source: "rule", model: SECOND, effort: "high" });
    const call = first.answer.output.find((item) => item.type === "function_call");
    expect(call).toBeDefined();

    const output = [{ type: "function_call_output" as const, call_id: call!.call_id, output: "the tokenizer is in tok/index.ts" }];
    const second = await send({ model: "normal", tools, previous_response_id: first.answer.id, input: output });
    expect(second.route).toMatchObject({ source: "continuation", model: SECOND, effort: "high" });

    const third = await send({ model: "normal", tools, previous_response_id: second.answer.id, input: "Thanks, now write a one line summary of the fix" });
    expect(third.route).toMatchObject({ source: "sticky", model: SECOND, effort: "low" });
  }, 30_000);
});
