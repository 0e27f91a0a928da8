import { afterAll, beforeAll, expect, test } from "bun:test";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/** Plan limits through one real gateway (in-process backend); the Redis pair is in test/limits/. */
let gw: TestGateway;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: UNCACHED_CONFIG });
}, 60_000);
afterAll(() => gw.stop(), 30_000);

const call = (key: string, text: string, init: { stream?: boolean; fault?: string; signal?: AbortSignal } = {}) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...(init.fault ? { "x-sim-fault": init.fault } : {}) },
    body: JSON.stringify({ model: "fast", stream: init.stream ?? false, messages: [{ role: "user", content: text }] }),
    ...(init.signal ? { signal: init.signal } : {}),
  });

/** Reads a stream's first bytes, then goes away. */
async function abandonAfterFirstByte(key: string, text: string): Promise<void> {
  const controller = new AbortController();
  const res = await call(key, `${text} [sim words=400 delay=0]`, { stream: true, signal: controller.signal });
  expect(res.status).toBe(200);
  await res.body!.getReader().read();
  controller.abort();
}

test("a concurrency slot comes back after a normal end, a stream, an upstream error and a client abort", async () => {
  const { key } = await gw.account("Starter");
  // Three rounds of each way to end: 12 requests on 4 slots, which only works if none leaks.
  for (let round = 0; round < 3; round++) {
    const done = await call(key, `normal ${round}`);
    expect(done.status).toBe(200);
    await done.text();
    const streamed = await call(key, `stream ${round}`, { stream: true });
    expect(await streamed.text()).toContain("[DONE]");
    const failed = await call(key, `error ${round}`, { fault: "status=400" });
    expect(failed.status).toBe(400);
    await failed.text();
    await abandonAfterFirstByte(key, `abort ${round}`);
  }
  // The abandoned streams' slots are freed when the gateway notices the client left.
  let status = 0;
  for (let attempt = 0; attempt < 100 && status !== 200; attempt++) {
    const res = await call(key, `after ${attempt}`);
    status = res.status;
    await res.text();
    if (status !== 200) await Bun.sleep(20);
  }
  expect(status).toBe(200);
});

test("the 5th concurrent request of a Starter account is refused with the plan's limit; headers on every answer", async () => {
  const { key } = await gw.account("Starter");
  // One request first: the key is then cached, so a request holds its slot as soon as it arrives
  // (what the in-flight count below sees).
  const warm = await call(key, "warm the key cache");
  await warm.text();
  // The upstream holds these back before their first byte, so each keeps its slot meanwhile.
  const controllers = [0, 1, 2, 3].map(() => new AbortController());
  const held = controllers.map((c, i) => call(key, `held ${i} [sim delay=5000]`, { stream: true, signal: c.signal }).catch(() => null));
  for (let i = 0; i < 200 && (await inFlight()) < 4; i++) await Bun.sleep(10);
  const fifth = await call(key, "fifth");
  expect(fifth.status).toBe(429);
  expect(((await fifth.json()) as { error: { message: string; type: string } }).error).toMatchObject({
    type: "rate_limit_error",
    message: "concurrency limit of 4 concurrent requests for plan Starter exceeded",
  });
  expect(Number(fifth.headers.get("retry-after"))).toBeGreaterThan(0);
  expect(fifth.headers.get("x-ratelimit-limit-requests")).toBe("60");
  for (const c of controllers) c.abort();
  await Promise.all(held);
  let after: Response | undefined;
  for (let attempt = 0; attempt < 100 && after?.status !== 200; attempt++) {
    if (attempt > 0) await Bun.sleep(20);
    after = await call(key, `after the streams ended ${attempt}`);
    await after.text();
  }
  expect(after?.status).toBe(200);
  // Six requests admitted this minute (the first, four held, this one); refused ones are not counted.
  expect(after?.headers.get("x-ratelimit-remaining-requests")).toBe("54");
});

/** Requests the gateway is serving, from its metrics (the scrape counts itself). */
async function inFlight(): Promise<number> {
  const text = await (await fetch(`${gw.url}/metrics`)).text();
  return Number(/^routelane_in_flight_requests (\d+)$/m.exec(text)?.[1] ?? 0) - 1;
}
