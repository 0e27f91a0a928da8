import { afterAll, beforeAll, expect, test } from "bun:test";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Redis configured but unreachable: limits fail open (requests are served on in-process counts,
 * never refused for it), and the metrics and readiness say so. Auth never fails open.
 */
let gw: TestGateway;

beforeAll(async () => {
  // Port 1 on loopback: nothing listens there, connections are refused at once.
  gw = await startTestGateway({ fileConfig: { ...UNCACHED_CONFIG, responseCache: { enabled: true } }, env: { REDIS_URL: "redis://127.0.0.1:1" } });
}, 60_000);
afterAll(() => gw.stop(), 30_000);

test("requests are served on in-process limits; the degraded state shows in metrics and readiness", async () => {
  const { key } = await gw.account("Starter");
  for (let i = 0; i < 3; i++) {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "fast", messages: [{ role: "user", content: `without redis ${i}` }] }),
    });
    expect(res.status).toBe(200);
    // The in-process counts still hold the plan's limit.
    expect(res.headers.get("x-ratelimit-remaining-requests")).toBe(String(59 - i));
    await res.text();
  }
  const metrics = await (await fetch(`${gw.url}/metrics`)).text();
  expect(metrics).toContain('routelane_redis_degraded{part="limits"} 1');
  const ready = await fetch(`${gw.url}/readyz`);
  expect(ready.status).toBe(503);
  expect(await ready.text()).toContain("redis");
  const unauthenticated = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: "Bearer rl_not_a_key", "content-type": "application/json" },
    body: JSON.stringify({ model: "fast", messages: [{ role: "user", content: "hi" }] }),
  });
  expect(unauthenticated.status).toBe(401);
  await unauthenticated.text();
}, 30_000);
