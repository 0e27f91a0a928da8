import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { WireFormat } from "../../src/canonical/wire-format.ts";
import { RUN_TESTS } from "./drive-sdk-conversation.ts";
import { FIRST, SECOND, post, routeOf, simMark, startRoutingGateway, twoModelConfig, type RoutingGateway } from "./start-routing-gateway.ts";

/**
 * A model switch inside a conversation whose history holds thinking signed by the first model.
 * The simulated upstream signs thinking per model and refuses (400 "Invalid `signature`") a block
 * another model signed, as the real API does; the gateway must strip it when another model
 * answers. Both models speak Messages, so a Messages client takes the byte path and a Responses
 * client the translated one. With REDIS_URL set, the pins (and what they remember of a switch)
 * live in Redis.
 */
let gw: RoutingGateway;
let n = 0;

beforeAll(async () => {
  gw = await startRoutingGateway(twoModelConfig({ routing: { rules: [] } }), { redis: true });
}, 60_000);
afterAll(() => gw.stop(), 30_000);

const failFirst = { "x-sim-fault": `status=500; model=${FIRST}` };
const failSecond = { "x-sim-fault": `status=500; model=${SECOND}` };

type Block = Record<string, unknown> & { type: string };

/** A Messages conversation held as raw bodies (the client replays every block it got). */
function messagesConversation(format: "messages") {
  const messages: { role: string; content: unknown }[] = [];
  const tools = [{ name: RUN_TESTS.name, description: RUN_TESTS.description, input_schema: RUN_TESTS.schema }];
  async function send(headers: Record<string, string>) {
    const response = await post(gw, format, { model: "normal", max_tokens: 1024, tools, messages }, headers);
    const body = (await response.json()) as { content?: Block[]; error?: { message: string } };
    if (response.ok) messages.push({ role: "assistant", content: body.content });
    return { status: response.status, ...routeOf(response), blocks: body.content ?? [], error: body.error?.message };
  }
  return {
    say: (text: string, headers: Record<string, string> = {}) => {
      messages.push({ role: "user", content: text });
      return send(headers);
    },
    reply: (text: string, headers: Record<string, string> = {}) => {
      const calls = (messages.at(-1)!.content as Block[]).filter((b) => b.type === "tool_use");
      messages.push({ role: "user", content: calls.map((c) => ({ type: "tool_result", tool_use_id: c.id, content: text })) });
      return send(headers);
    },
    /** The history so far with a new user turn, as a client would send it next. */
    withTurn: (text: string) => [...messages, { role: "user", content: text }],
  };
}

/** What the simulated upstream was sent since `mark`: per request, the model and the thinking blocks in its history. */
function thinkingSentSince(mark: number): { model: string; thinking: number }[] {
  return gw.gateway.sim!.received.slice(mark).map((r) => {
    const body = r.body as { model: string; messages: { content: unknown }[] };
    const blocks = body.messages.flatMap((m) => (Array.isArray(m.content) ? (m.content as Block[]) : []));
    return { model: body.model, thinking: blocks.filter((b) => b.type === "thinking").length };
  });
}

describe("Messages client", () => {
  test("a new turn answered by another model: the first model's thinking is stripped, 200", async () => {
    const chat = messagesConversation("messages");
    const first = await chat.say(`Explain how the cache warms up, take ${++n}`);
    expect(first).toMatchObject({ status: 200, model: FIRST });
    // (Not `toMatchObject` with `expect.any`: Bun's writes the matcher into the received object.)
    expect(first.blocks[0]?.type).toBe("thinking");
    expect(typeof first.blocks[0]?.signature).toBe("string");

    const mark = simMark(gw);
    const second = await chat.say("And how does it cool down?", failFirst);
    expect(second).toMatchObject({ status: 200, model: SECOND, source: "sticky" });
    // The first model was sent its own thinking; the second got the history without it.
    expect(thinkingSentSince(mark)).toEqual([
      { model: FIRST, thinking: 1 },
      { model: SECOND, thinking: 0 },
    ]);
  });

  test("a switch inside a tool loop: stripped, and thinking is off for that turn", async () => {
    const chat = messagesConversation("messages");
    const first = await chat.say(`Run the tests of the cache, take ${++n} [sim tool=${RUN_TESTS.name} args={"path":"cache"}]`);
    expect(first).toMatchObject({ status: 200, model: FIRST });
    expect(first.blocks.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);

    const second = await chat.reply("the cache tests are in cache/", failFirst);
    // Thinking stays on only where the loop's last assistant turn keeps its thinking block.
    expect(second).toMatchObject({ status: 200, model: SECOND, source: "continuation", effort: "off" });
  });

  test("the conversation carries on with the new model: the old model's thinking still in the history is stripped", async () => {
    const chat = messagesConversation("messages");
    expect(await chat.say(`Explain how the index is built, take ${++n}`)).toMatchObject({ status: 200, model: FIRST });
    expect(await chat.say("What about deletions?", failFirst)).toMatchObject({ status: 200, model: SECOND });
    // Now pinned to the second model; the first model's turn-1 thinking is still in the history.
    const mark = simMark(gw);
    const third = await chat.say("And updates?");
    expect(third).toMatchObject({ status: 200, model: SECOND, source: "sticky" });
    // The second model's own thinking (turn 2) is kept.
    expect(thinkingSentSince(mark)).toEqual([{ model: SECOND, thinking: 1 }]);
  });

  test("back to the first model: every thinking block is stripped, 200", async () => {
    const chat = messagesConversation("messages");
    expect(await chat.say(`Explain how the log is compacted, take ${++n}`)).toMatchObject({ status: 200, model: FIRST });
    expect(await chat.say("What triggers it?", failFirst)).toMatchObject({ status: 200, model: SECOND });
    const mark = simMark(gw);
    const third = await chat.say("How long does it take?", failSecond);
    expect(third).toMatchObject({ status: 200, model: FIRST });
    // The pinned second model is tried with its own thinking only; the first gets none.
    expect(thinkingSentSince(mark)).toEqual([
      { model: SECOND, thinking: 1 },
      { model: FIRST, thinking: 0 },
    ]);
  });

  test("a history the gateway holds no pin for (a lost pin): another model's refusal of the thinking is retried without it, and the next turn goes straight", async () => {
    const chat = messagesConversation("messages");
    // A session header of its own makes each its own conversation: the second finds no pin.
    const before = { "x-session-id": `before-${++n}` };
    const after = { "x-session-id": `after-${n}` };
    expect(await chat.say(`Explain how the queue drains, take ${n}`, before)).toMatchObject({ status: 200, model: FIRST });

    const mark = simMark(gw);
    const second = await chat.say("What if it backs up?", { ...after, ...failFirst });
    expect(second).toMatchObject({ status: 200, model: SECOND });
    // The second model refused the first one's thinking (nothing said it was foreign); sent again without it.
    expect(thinkingSentSince(mark)).toEqual([
      { model: FIRST, thinking: 1 },
      { model: SECOND, thinking: 1 },
      { model: SECOND, thinking: 0 },
    ]);

    // Pinned now, with the turn before the switch known as foreign: its thinking is stripped at once, the second model's own kept.
    const next = simMark(gw);
    expect(await chat.say("And how is that reported?", after)).toMatchObject({ status: 200, model: SECOND, source: "sticky" });
    expect(thinkingSentSince(next)).toEqual([{ model: SECOND, thinking: 1 }]);
  });

  test("a lost pin, streamed: the refusal comes before the first event, so the client gets the stream without it", async () => {
    const chat = messagesConversation("messages");
    const before = { "x-session-id": `before-${++n}` };
    expect(await chat.say(`Explain how the index warms up, take ${n}`, before)).toMatchObject({ status: 200, model: FIRST });
    const mark = simMark(gw);
    const response = await post(
      gw,
      "messages",
      { model: "normal", max_tokens: 1024, stream: true, messages: chat.withTurn("What if it falls behind?") },
      { "x-session-id": `after-${n}`, ...failFirst },
    );
    expect(response.status).toBe(200);
    expect(response.headers.get("x-router-model")).toBe(SECOND);
    const events = await response.text();
    expect(events).toContain("event: message_stop");
    expect(events).not.toContain("event: error");
    expect(thinkingSentSince(mark)).toEqual([
      { model: FIRST, thinking: 1 },
      { model: SECOND, thinking: 1 },
      { model: SECOND, thinking: 0 },
    ]);
  });

  test("a tool loop that switched models goes on on the new model", async () => {
    const chat = messagesConversation("messages");
    await chat.say(`Run the tests of the parser, take ${++n} [sim tool=${RUN_TESTS.name} args={"path":"parser"}]`);
    const second = await chat.say(`Run them again [sim tool=${RUN_TESTS.name} args={"path":"parser"}]`, failFirst);
    expect(second).toMatchObject({ status: 200, model: SECOND });
    expect(second.blocks.map((b) => b.type)).toEqual(["thinking", "text", "tool_use"]);
    // The loop continues on the second model with its own thinking in the last assistant turn.
    const third = await chat.reply("3 passed");
    expect(third).toMatchObject({ status: 200, model: SECOND, source: "continuation" });
    expect(third.effort).not.toBe("off");
  });
});

describe("Responses client (translated to the Messages models)", () => {
  const format: WireFormat = "responses";

  async function send(input: unknown[], headers: Record<string, string> = {}) {
    const body = { model: "normal", input, store: false, include: ["reasoning.encrypted_content"] };
    const response = await post(gw, format, body, headers);
    const json = (await response.json()) as { output?: Block[]; error?: { message: string } };
    return { status: response.status, ...routeOf(response), output: json.output ?? [], error: json.error?.message };
  }

  test("the first model's reasoning replayed to the second is stripped, 200", async () => {
    const input: unknown[] = [{ role: "user", content: `Explain how the cache warms up, take ${++n}` }];
    const first = await send(input);
    expect(first).toMatchObject({ status: 200, model: FIRST });
    expect(first.output[0]?.type).toBe("reasoning");
    expect(first.output[0]?.encrypted_content).toStartWith("rlm1.");
    input.push(...first.output, { role: "user", content: "And how does it cool down?" });

    const mark = simMark(gw);
    const second = await send(input, failFirst);
    expect(second).toMatchObject({ status: 200, model: SECOND });
    expect(thinkingSentSince(mark)).toEqual([
      { model: FIRST, thinking: 1 },
      { model: SECOND, thinking: 0 },
    ]);

    // The conversation goes on with the second model: the first model's reasoning is still in the
    // client's history, the second's own is kept.
    input.push(...second.output, { role: "user", content: "And when is it rebuilt?" });
    const next = simMark(gw);
    expect(await send(input)).toMatchObject({ status: 200, model: SECOND, source: "sticky" });
    expect(thinkingSentSince(next)).toEqual([{ model: SECOND, thinking: 1 }]);
  });

  test("a lost pin: the second model's refusal of the first one's reasoning is retried without it, 200", async () => {
    const input: unknown[] = [{ role: "user", content: `Explain how the queue warms up, take ${++n}` }];
    const first = await send(input, { "x-session-id": `before-${n}` });
    expect(first).toMatchObject({ status: 200, model: FIRST });
    input.push(...first.output, { role: "user", content: "And how does it drain?" });

    const mark = simMark(gw);
    const second = await send(input, { "x-session-id": `after-${n}`, ...failFirst });
    expect(second).toMatchObject({ status: 200, model: SECOND });
    expect(thinkingSentSince(mark)).toEqual([
      { model: FIRST, thinking: 1 },
      { model: SECOND, thinking: 1 },
      { model: SECOND, thinking: 0 },
    ]);
  });
});
