import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { buildConversationBody } from "../../src/bench/build-conversation-body.ts";
import { knobConfig } from "../helpers/start-knob-upstream.ts";
import { startRecordingUpstream } from "../helpers/start-recording-upstream.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * A coding agent sends its whole conversation every turn; the gateway parses again only what is
 * new in it and reuses what the account sent before. Whatever it reuses, each turn reaches the
 * upstream exactly as that turn was sent: the same conversation, edits included, on the
 * same-format path and translated.
 */

type Body = Record<string, unknown> & { messages: Record<string, unknown>[] };

const upstream = startRecordingUpstream();
/** What the upstream received last, parsed. */
const lastReceived = (): Body => JSON.parse(upstream.received.at(-1)!) as Body;

let gw: TestGateway;
let anthropic: Anthropic;
let openai: OpenAI;
let other: Anthropic;
beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: knobConfig(upstream.url) });
  const { key } = await gw.account("Enterprise");
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
  other = new Anthropic({ baseURL: gw.url, apiKey: (await gw.account("Enterprise")).key, maxRetries: 0 });
}, 30_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop();
}, 30_000);

/** A Claude-Code-like conversation of about 200 KB: tools, tool calls and their results. */
const conversation = buildConversationBody({ targetBytes: 200 * 1024, images: false, model: "normal", stream: false, maxTokens: 64 }) as Body;

/** Sends `body` as the Messages SDK does; what the upstream received for it. */
async function sendMessages(client: Anthropic, body: Body): Promise<Body> {
  const answer = await client.messages.create(body as unknown as Anthropic.MessageCreateParamsNonStreaming);
  expect(answer.content.map((block) => (block.type === "text" ? block.text : block.type))).toEqual(["ok"]);
  return lastReceived();
}

describe("a conversation sent turn after turn", () => {
  test("the same-format upstream gets each turn as it was sent: repeated, grown and edited", async () => {
    // First sight, kept, reused: three times the same conversation upstream.
    const first = await sendMessages(anthropic, conversation);
    expect(first.messages).toEqual(conversation.messages);
    expect(first.tools).toEqual(conversation.tools);
    expect(first.system).toEqual(conversation.system);
    expect(first.model).toBe("knob-messages");
    for (let i = 0; i < 2; i++) expect(await sendMessages(anthropic, conversation)).toEqual(first);

    // The next turn: the answer and a new question appended.
    const grown: Body = { ...conversation, messages: [...conversation.messages, { role: "assistant", content: [{ type: "text", text: "ok" }] }, { role: "user", content: "And the tests?" }] };
    expect((await sendMessages(anthropic, grown)).messages).toEqual(grown.messages);

    // An earlier tool result (the first, in the third message) edited to another text of the same length: the edit goes, not the kept one.
    const edited = structuredClone(grown);
    const at = 2;
    const result = (edited.messages[at]!.content as { content: { text: string }[] }[])[0]!.content[0]!;
    const middle = Math.floor(result.text.length / 2);
    result.text = `${result.text.slice(0, middle)}${result.text[middle] === "#" ? "%" : "#"}${result.text.slice(middle + 1)}`;
    expect(JSON.stringify(edited.messages[at]).length).toBe(JSON.stringify(grown.messages[at]).length);
    const sentEdited = await sendMessages(anthropic, edited);
    expect(sentEdited.messages).toEqual(edited.messages);
    expect(sentEdited.messages[at]).not.toEqual(grown.messages[at]);

    // Another account sending the same conversation gets it upstream as it sent it.
    expect(await sendMessages(other, conversation)).toEqual(first);

    // What was kept is visible to the operator: the first account's conversation, kept from its second sighting.
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    const kept = Number(/^routelane_parse_memo_chars (\d+)$/m.exec(metrics)?.[1]);
    expect(kept).toBeGreaterThan(JSON.stringify(conversation.messages).length);
  });

  test("a translated conversation reaches the upstream the same on every turn", async () => {
    const system = "You are a careful reviewer. ".repeat(400);
    const messages: OpenAI.ChatCompletionMessageParam[] = [{ role: "system", content: system }];
    for (let i = 0; i < 40; i++) {
      messages.push({ role: "user", content: `Review part ${i}: ${"const x = 1; ".repeat(80)}` });
      messages.push({ role: "assistant", content: `Part ${i} is fine.` });
    }
    messages.push({ role: "user", content: "Summarise." });
    const upstreamBodies: Body[] = [];
    for (let i = 0; i < 3; i++) {
      const answer = await openai.chat.completions.create({ model: "normal", messages, max_tokens: 64 });
      expect(answer.choices[0]!.message.content).toBe("ok");
      upstreamBodies.push(lastReceived());
    }
    expect(upstreamBodies[1]).toEqual(upstreamBodies[0]!);
    expect(upstreamBodies[2]).toEqual(upstreamBodies[0]!);
    expect(JSON.stringify(upstreamBodies[0]!.system)).toContain("careful reviewer");
    expect(upstreamBodies[0]!.messages).toHaveLength(81);
    expect(upstreamBodies[0]!.messages[80]).toEqual({ role: "user", content: [{ type: "text", text: "Summarise." }] });
  });
});

test("with server.parseMemoChars 0 nothing is kept, and every turn still goes upstream as sent", async () => {
  const off = await startTestGateway({ fileConfig: { ...knobConfig(upstream.url), server: { parseMemoChars: 0 } } });
  try {
    const client = new Anthropic({ baseURL: off.url, apiKey: (await off.account("Enterprise")).key, maxRetries: 0 });
    for (let i = 0; i < 3; i++) expect((await sendMessages(client, conversation)).messages).toEqual(conversation.messages);
    const metrics = await (await fetch(`${off.url}/metrics`)).text();
    expect(metrics).toMatch(/^routelane_parse_memo_chars 0$/m);
  } finally {
    await off.stop();
  }
}, 30_000);
