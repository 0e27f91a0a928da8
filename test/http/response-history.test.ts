import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { lastUpstreamRequest, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Responses clients chain turns with `previous_response_id`. A Messages upstream keeps no state, so
 * when the gateway made the earlier answer from one, it gives the conversation back itself.
 */
const CONFIG: FileConfig = { ...UNCACHED_CONFIG, tiers: { ...DEFAULT_CONFIG.tiers, normal: { ...DEFAULT_CONFIG.tiers.normal, models: ["sim-normal"] } } };

let gw: TestGateway;
let openai: OpenAI;
let otherAccount: OpenAI;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: CONFIG });
  openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: (await gw.account("Enterprise")).key, maxRetries: 0 });
  otherAccount = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: (await gw.account("Enterprise")).key, maxRetries: 0 });
}, 60_000);
afterAll(() => gw.stop(), 30_000);

/** The Messages conversation the upstream received last, as text in order. */
function upstreamConversation(): string {
  const upstream = lastUpstreamRequest(gw);
  expect(upstream.path).toBe("/v1/messages");
  return JSON.stringify(upstream.body.messages);
}

/** `texts` appear in `haystack` in this order. */
function expectInOrder(haystack: string, texts: readonly string[]): void {
  let from = 0;
  for (const text of texts) {
    const at = haystack.indexOf(JSON.stringify(text).slice(1, -1), from);
    expect(at, `"${text}" after position ${from}`).toBeGreaterThanOrEqual(from);
    from = at + text.length;
  }
}

describe("previous_response_id on a stateless upstream", () => {
  test("each turn gets the earlier turns back, the answers included", async () => {
    const first = await openai.responses.create({ model: "normal", input: "My name is Zed and I like ferns." });
    expect(first.id.startsWith("resp_")).toBe(true);
    expect(upstreamConversation()).not.toContain("previous_response_id");

    const second = await openai.responses.create({ model: "normal", previous_response_id: first.id, input: "What is my name?" });
    expectInOrder(upstreamConversation(), ["My name is Zed and I like ferns.", first.output_text, "What is my name?"]);

    await openai.responses.create({ model: "normal", previous_response_id: second.id, input: "And what do I like?" });
    expectInOrder(upstreamConversation(), ["My name is Zed and I like ferns.", first.output_text, "What is my name?", second.output_text, "And what do I like?"]);
  });

  test("a streamed answer is kept too, under the id the stream showed", async () => {
    const stream = openai.responses.stream({ model: "normal", input: "Remember the number 4711." });
    const first = await stream.finalResponse();
    await openai.responses.create({ model: "normal", previous_response_id: first.id, input: "Which number?" });
    expectInOrder(upstreamConversation(), ["Remember the number 4711.", first.output_text, "Which number?"]);
  });

  test("a turn continued as a stream gets the history too", async () => {
    const first = await openai.responses.create({ model: "normal", input: "The password is swordfish." });
    const stream = openai.responses.stream({ model: "normal", previous_response_id: first.id, input: "What was the password?" });
    await stream.finalResponse();
    expectInOrder(upstreamConversation(), ["The password is swordfish.", first.output_text, "What was the password?"]);
  });

  test("store: false keeps nothing, as a Responses upstream would", async () => {
    const first = await openai.responses.create({ model: "normal", store: false, input: "Forget me: 1234." });
    await openai.responses.create({ model: "normal", previous_response_id: first.id, input: "Anything before this?" });
    const conversation = upstreamConversation();
    expect(conversation).not.toContain("Forget me: 1234.");
    expect(conversation).toContain("Anything before this?");
  });

  test("a turn that sends its whole history itself is not kept (it would be stored again every turn)", async () => {
    const full = await openai.responses.create({
      model: "normal",
      input: [
        { role: "user", content: "Earlier question: the colour is teal." },
        { role: "assistant", content: "Noted." },
        { role: "user", content: "Now a new question." },
      ],
    });
    await openai.responses.create({ model: "normal", previous_response_id: full.id, input: "Which colour?" });
    const conversation = upstreamConversation();
    expect(conversation).not.toContain("the colour is teal");
    expect(conversation).toContain("Which colour?");
  });

  test("another account cannot continue the conversation", async () => {
    const first = await openai.responses.create({ model: "normal", input: "Private fact: blue door." });
    await otherAccount.responses.create({ model: "normal", previous_response_id: first.id, input: "What was the fact?" });
    const conversation = upstreamConversation();
    expect(conversation).not.toContain("Private fact: blue door.");
    expect(conversation).toContain("What was the fact?");
  });
});
