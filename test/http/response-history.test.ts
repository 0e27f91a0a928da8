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

/** The SDK's error for a request that must fail. */
async function apiErrorOf(pending: Promise<unknown>): Promise<InstanceType<typeof OpenAI.APIError>> {
  const error = await pending.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(error).toBeInstanceOf(OpenAI.APIError);
  return error as InstanceType<typeof OpenAI.APIError>;
}

/** The Responses API's refusal of a `previous_response_id` it does not know. */
async function expectNotFound(pending: Promise<unknown>, id: string): Promise<void> {
  const apiError = await apiErrorOf(pending);
  expect(apiError.status).toBe(400);
  expect(apiError.code).toBe("previous_response_not_found");
  expect(apiError.param).toBe("previous_response_id");
  expect(apiError.message).toContain(`Previous response with id '${id}' not found.`);
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

  test("store: false keeps nothing, as a Responses upstream would: continuing from it is refused", async () => {
    const first = await openai.responses.create({ model: "normal", store: false, input: "Forget me: 1234." });
    await expectNotFound(openai.responses.create({ model: "normal", previous_response_id: first.id, input: "Anything before this?" }), first.id);
  });

  test("a turn with store: false still continues a kept conversation (it only keeps nothing of its own)", async () => {
    const first = await openai.responses.create({ model: "normal", input: "The river is called Lune." });
    const second = await openai.responses.create({ model: "normal", store: false, previous_response_id: first.id, input: "Which river?" });
    expectInOrder(upstreamConversation(), ["The river is called Lune.", first.output_text, "Which river?"]);
    await expectNotFound(openai.responses.create({ model: "normal", previous_response_id: second.id, input: "Again?" }), second.id);
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
    await expectNotFound(openai.responses.create({ model: "normal", previous_response_id: full.id, input: "Which colour?" }), full.id);
  });

  test("another account cannot continue the conversation: to it the id is unknown", async () => {
    const first = await openai.responses.create({ model: "normal", input: "Private fact: blue door." });
    const calls = gw.gateway.sim!.received.length;
    await expectNotFound(otherAccount.responses.create({ model: "normal", previous_response_id: first.id, input: "What was the fact?" }), first.id);
    // Refused before any upstream call: the model never saw the turn without its conversation.
    expect(gw.gateway.sim!.received.length).toBe(calls);
  });

  test("an unknown id of any length is refused with at most 128 of its characters echoed", async () => {
    const long = `resp_${"x".repeat(5000)}`;
    await expectNotFound(openai.responses.create({ model: "normal", previous_response_id: long, input: "Hello?" }), `${long.slice(0, 128)}…`);
    const error = await apiErrorOf(openai.responses.create({ model: "normal", previous_response_id: long, input: "Hello?" }));
    expect(error.message.length).toBeLessThan(300);
  });

  test("an unknown id is refused as the Responses API refuses it, streamed or not", async () => {
    await expectNotFound(openai.responses.create({ model: "normal", previous_response_id: "resp_never_made", input: "Hello?" }), "resp_never_made");
    await expectNotFound(
      openai.responses.stream({ model: "normal", previous_response_id: "resp_never_made", input: "Hello?" }).finalResponse(),
      "resp_never_made",
    );
  });

  test("a conversation kept at a Responses upstream whose model is failing: 503 to try again, not an unknown id", async () => {
    // smart: sim-smart speaks Responses (the upstream keeps the conversation), sim-smart-b only Messages.
    const first = await openai.responses
      .create({ model: "smart", input: "Remember the harbour Tarn." }, { headers: { "x-sim-fault": "model=sim-smart-b; status=503" } })
      .withResponse();
    expect(first.response.headers.get("x-router-model")).toBe("sim-smart");
    const apiError = await apiErrorOf(
      openai.responses.create({ model: "smart", previous_response_id: first.data.id, input: "Which harbour?" }, { headers: { "x-sim-fault": "model=sim-smart; status=503" } }),
    );
    expect(apiError.status).toBe(503);
    expect(apiError.code).toBe("conversation_model_unavailable");
    expect(apiError.headers?.get("retry-after")).toBe("5");
  });
});
