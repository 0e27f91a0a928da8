import { afterAll, beforeAll, expect, test } from "bun:test";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * The `llm` classifier through the real gateway: the fast tier's model is asked for the class
 * (thinking off, a few tokens), and when its answer names no class the rules decide.
 */
let gw: TestGateway;

beforeAll(async () => {
  const routing = UNCACHED_CONFIG.routing!;
  gw = await startTestGateway({ fileConfig: { ...UNCACHED_CONFIG, routing: { ...routing, classifier: { kind: "llm", llmDeadlineMs: 2_000 } } } });
}, 60_000);
afterAll(() => gw.stop(), 30_000);

test("the fast tier's model is asked for the class; an answer naming none falls back to the rules", async () => {
  const { key } = await gw.account("Enterprise");
  const before = gw.gateway.sim!.received.length;
  const res = await fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "smart", max_tokens: 256, messages: [{ role: "user", content: "Why does this crash? TypeError: x is undefined\n    at f (a.js:1:2)" }] }),
  });
  expect(res.status).toBe(200);
  await res.text();
  const calls = gw.gateway.sim!.received.slice(before);
  const asked = calls.find((c) => (c.body as { model?: string }).model === "sim-fast");
  expect(asked).toBeDefined();
  expect(asked!.path).toBe("/v1/chat/completions");
  const body = asked!.body as { reasoning_effort?: string; messages: { content: unknown }[] };
  expect(body.reasoning_effort).toBe("none");
  expect(JSON.stringify(body.messages)).toContain("Classify the task below into exactly one class");
  // The simulated model's answer names no class: the rules classified the stack trace.
  expect(res.headers.get("x-router-source")).toBe("rule");
  expect(res.headers.get("x-router-effort")).toBe("high");
});
