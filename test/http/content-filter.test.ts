import { afterAll, beforeAll, expect, test } from "bun:test";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * The spec (Events 4): a content filter that blocks a streamed reply cuts the stream and sends an
 * error event. An upstream Chat stream that ends with `finish_reason: content_filter`, translated
 * for a Messages client, ends with `event: error` and no `message_stop`.
 */
const chunk = (delta: object, finish: string | null) =>
  `data: ${JSON.stringify({ id: "chatcmpl-f", object: "chat.completion.chunk", created: 1, model: "filtered", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

const upstream = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: () =>
    new Response(chunk({ role: "assistant", content: "" }, null) + chunk({ content: "Here is how to" }, null) + chunk({}, "content_filter") + "data: [DONE]\n\n", {
      headers: { "content-type": "text/event-stream" },
    }),
});

const CONFIG: FileConfig = {
  ...UNCACHED_CONFIG,
  providers: { ...DEFAULT_CONFIG.providers, filtering: { kind: "openai-compatible", baseUrl: upstream.url.origin } },
  models: { ...DEFAULT_CONFIG.models, filtered: { ...DEFAULT_CONFIG.models["sim-fast"]!, provider: "filtering", upstreamId: "filtered", apis: ["chat"] } },
  tiers: { ...DEFAULT_CONFIG.tiers, fast: { ...DEFAULT_CONFIG.tiers.fast, models: ["filtered"] } },
};

let gw: TestGateway;
beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: CONFIG });
}, 60_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop(true);
}, 30_000);

test("a streamed reply blocked by a content filter ends with the format's error event", async () => {
  const { key } = await gw.account("Enterprise");
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "fast", max_tokens: 64, stream: true, messages: [{ role: "user", content: "hello" }] }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  expect(text).toContain("Here is how to");
  expect(text).toContain("event: error");
  expect(text).toContain("content filter");
  expect(text).not.toContain("message_stop");
});
