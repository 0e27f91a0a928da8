import { afterAll, beforeAll, expect, test } from "bun:test";
import { knobConfig } from "../helpers/start-knob-upstream.ts";
import { startRecordingUpstream } from "../helpers/start-recording-upstream.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * A same-format body goes upstream as the client sent it, less the members the gateway replaces:
 * an upstream that records the text it received sees the client's own spacing, escapes and
 * member order, the model replaced, and the same JSON value as the gateway's body.
 */

const upstream = startRecordingUpstream();

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: knobConfig(upstream.url) });
  ({ key } = await gw.account("Enterprise"));
}, 30_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop();
}, 30_000);

/** Posts the body text to the gateway; the text its upstream received. */
async function sendAndCapture(text: string): Promise<string> {
  const response = await fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: text,
  });
  expect(response.status).toBe(200);
  return upstream.received.at(-1)!;
}

test.each([
  ["ASCII", "Read src/app.ts and fix the bug"],
  ["non-ASCII", "Lies src/app.ts — und behebe den Fehler 🚀"],
])("%s: unchanged members keep the client's bytes, the model is the upstream's", async (_, ask) => {
  const messages = ` [ {"role" : "user", "content" : ${JSON.stringify(ask)} , "x\\u0041": 1} ]`;
  // Large enough to be cut from its bytes (a small body is serialised again).
  const system = JSON.stringify("Be brief. ".repeat(2_000));
  const text = `{ "model" : "normal",\n  "system" : ${system},\n  "messages" :${messages},\n  "max_tokens" : 64 }`;
  const sent = await sendAndCapture(text);
  // The conversation as the client wrote it, spacing and escape included; the model replaced.
  expect(sent).toContain(`"messages" :${messages}`);
  expect(sent).not.toContain(`"model" : "normal"`);
  const body = JSON.parse(sent) as Record<string, unknown>;
  expect(body.model).toBe("knob-messages");
  expect(body.messages).toEqual(JSON.parse(messages));
});

test("a small body is serialised again: the same JSON value, written compactly", async () => {
  const text = `{ "model" : "normal",  "messages" : [ {"role" : "user", "content" : "hi"} ], "max_tokens" : 64 }`;
  const sent = await sendAndCapture(text);
  expect(sent).toContain(`"messages":[{"role":"user","content":"hi"}]`);
  expect((JSON.parse(sent) as Record<string, unknown>).model).toBe("knob-messages");
});
