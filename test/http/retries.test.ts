import Anthropic from "@anthropic-ai/sdk";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import OpenAI from "openai";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";
import type { ModelCall } from "../../src/pipeline/call-model.ts";
import type { RequestRecord } from "../../src/canonical/request-record.ts";
import { callWithFailover, type Candidate } from "../../src/pipeline/call-with-failover.ts";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { createCircuitBreaker } from "../../src/routing/circuit-breaker.ts";
import { resolveProviders } from "../../src/upstream/resolve-providers.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Retries before the first byte: a transient failure calls the same model again after a back-off
 * that honours the upstream's wait, within the request's budget; then failover; the breaker sees
 * each model's final outcome; a gateway that gives up on a transient failure tells the SDKs to
 * retry. The faults are the simulated upstream's (`times`, `retry-after`).
 */

const RETRIES = { attempts: 2, budgetMs: 5_000, baseDelayMs: 10, maxDelayMs: 40 };

const CONFIG: FileConfig = {
  ...UNCACHED_CONFIG,
  server: { retries: RETRIES },
  // Nothing listens on port 9 of this machine: every call to `unreachable` fails at connect.
  providers: { ...UNCACHED_CONFIG.providers, down: { kind: "openai-compatible", baseUrl: "http://127.0.0.1:9" } },
  models: { ...UNCACHED_CONFIG.models, unreachable: { ...UNCACHED_CONFIG.models["sim-smart"]!, provider: "down" } },
  tiers: { ...UNCACHED_CONFIG.tiers, smart: { ...UNCACHED_CONFIG.tiers.smart, models: ["unreachable", "sim-smart"] } },
};

let gw: TestGateway;
let key: string;
const records: RequestRecord[] = [];
beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: CONFIG });
  gw.gateway.observers.push((record) => void records.push(record));
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(() => gw.stop(), 30_000);

const anthropic = () => new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
const openai = (maxRetries = 0) => new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries });

/** Requests the simulated upstream received whose newest text contains `marker`. */
function upstreamCalls(marker: string): Array<{ path: string; model: unknown }> {
  return gw.gateway
    .sim!.received.filter((r) => JSON.stringify(r.body).includes(marker))
    .map((r) => ({ path: r.path, model: (r.body as { model?: unknown }).model }));
}

describe("a model that fails twice, then answers", () => {
  test("Messages, streamed (fast: one model, speaking Chat): answered by the same model on its third call", async () => {
    const marker = "twice-then-answers-a";
    const stream = anthropic().messages.stream({ model: "fast", max_tokens: 64, messages: [{ role: "user", content: `${marker} [sim status=500 times=2]` }] });
    const message = await stream.finalMessage();
    expect(message.content.some((b) => b.type === "text" && b.text.includes("sim-fast"))).toBe(true);
    expect(upstreamCalls(marker).map((c) => c.model)).toEqual(["sim-fast", "sim-fast", "sim-fast"]);
  });

  test("the breaker sees the final outcome only: two failed calls, then an answer, leave it closed", async () => {
    const sim = await startSim();
    try {
      const breaker = createCircuitBreaker({ failureThreshold: 2, coolDownMs: 60_000 });
      const providers = resolveProviders(loadConfig({}), {}, sim.url);
      const { attempts } = await callWithFailover(modelCall("chat", "breaker [sim status=503 times=2 retry-after-ms=1]"), [candidate("sim-fast")], {
        providers,
        clientHeaders: new Headers(),
        breaker,
        retries: RETRIES,
      });
      expect(attempts).toBe(3);
      expect(breaker.snapshot()["sim-fast"]).toEqual({ state: "closed", consecutiveFailures: 0, retryAt: null });
      // And a model that fails for good counts once per request, not once per call.
      await callWithFailover(modelCall("chat", "breaker [sim status=503 retry-after-ms=1]"), [candidate("sim-fast")], { providers, clientHeaders: new Headers(), breaker, retries: RETRIES }).catch(() => {});
      expect(breaker.snapshot()["sim-fast"]).toMatchObject({ state: "closed", consecutiveFailures: 1 });
    } finally {
      await sim.stop();
    }
  });

  test.each([429, 502, 503, 504, 529])("Chat, upstream %d twice → answered by the same model", async (status) => {
    const marker = `twice-then-answers-chat-${status}`;
    const answer = await openai().chat.completions.create({ model: "fast", messages: [{ role: "user", content: `${marker} [sim status=${status} times=2 retry-after-ms=5]` }] });
    expect(answer.choices[0]!.message.content).toContain("sim-fast");
    expect(upstreamCalls(marker)).toHaveLength(3);
  });

  test("Responses: an unreachable model is called three times, then the next one answers", async () => {
    const marker = "connection-refused";
    const before = records.length;
    const answer = await openai().responses.create({ model: "smart", input: `${marker}` }).withResponse();
    expect(answer.response.headers.get("x-router-model")).toBe("sim-smart");
    const record = records.slice(before).find((r) => r.endpoint === "responses");
    expect(record?.attempts).toBe(4);
    expect(upstreamCalls(marker).map((c) => c.model)).toEqual(["sim-smart"]);
  });
});

describe("the upstream's wait is honoured", () => {
  let sim: SimServer;
  beforeAll(async () => {
    sim = await startSim({ record: true });
  });
  afterAll(() => sim.stop());

  test.each([
    ["retry-after=2", 2000],
    ["retry-after-ms=1500", 1500],
  ])("%s: the retry waits exactly that long (the clock is the test's)", async (fault, ms) => {
    const waits: number[] = [];
    const providers = resolveProviders(loadConfig({}), {}, sim.url);
    const { answer, attempts } = await callWithFailover(modelCall("chat", `wait ${fault} [sim status=429 times=1 ${fault}]`), [candidate("sim-fast")], {
      providers,
      clientHeaders: new Headers(),
      retries: { ...RETRIES, budgetMs: 10_000 },
      sleep: async (wait) => {
        waits.push(wait);
        return true;
      },
    });
    expect(attempts).toBe(2);
    expect(waits).toEqual([ms]);
    expect(new TextDecoder().decode(answer.body as Uint8Array)).toContain("sim-fast");
  });

  test("a wait past the budget is not waited for: the next model answers at once", async () => {
    const marker = "wait-past-budget";
    // retry-after 20 s > the 5 s budget: no retry of sim-normal, failover to sim-normal-b.
    const answer = await openai().chat.completions.create({ model: "normal", messages: [{ role: "user", content: `${marker} [sim status=429 retry-after=20 model=sim-normal]` }] }).withResponse();
    expect(answer.response.headers.get("x-router-model")).toBe("sim-normal-b");
    expect(upstreamCalls(marker).map((c) => c.model)).toEqual(["sim-normal", "sim-normal-b"]);
  });

  test("when the gateway gives up, it passes the upstream's wait on", async () => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "fast", messages: [{ role: "user", content: "gives up [sim status=429 retry-after=20]" }] }),
    });
    expect(res.status).toBe(503);
    await res.text();
    expect(res.headers.get("x-should-retry")).toBe("true");
    expect(res.headers.get("retry-after")).toBe("20");
    expect(res.headers.get("retry-after-ms")).toBe("20000");
  });
});

describe("the budget", () => {
  test("attempts: two retries, then the gateway gives up with x-should-retry: true and a retry-after", async () => {
    const marker = "budget-attempts";
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "fast", max_tokens: 32, messages: [{ role: "user", content: `${marker} [sim status=500]` }] }),
    });
    const body = (await res.json()) as { type: string; error: { type: string } };
    expect(res.status).toBe(502);
    expect(body.error.type).toBe("api_error");
    expect(res.headers.get("x-should-retry")).toBe("true");
    expect(Number(res.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    expect(upstreamCalls(marker)).toHaveLength(3);
  });

  test("attempts are per request: failover after the budget is spent gets no retries of its own", async () => {
    const marker = "budget-per-request";
    const res = await openai().chat.completions.create({ model: "normal", messages: [{ role: "user", content: `${marker} [sim status=503 retry-after-ms=5]` }] }).catch((e: { status: number }) => e);
    expect((res as { status: number }).status).toBe(503);
    expect(upstreamCalls(marker).map((c) => c.model)).toEqual(["sim-normal", "sim-normal", "sim-normal", "sim-normal-b"]);
  });

  test("time: no retry begins past budgetMs", async () => {
    const marker = "budget-time";
    const sim = await startSim({ record: true });
    try {
      const providers = resolveProviders(loadConfig({}), {}, sim.url);
      let clock = 0;
      const error = await callWithFailover(modelCall("chat", `${marker} [sim status=500 retry-after-ms=400]`), [candidate("sim-fast")], {
        providers,
        clientHeaders: new Headers(),
        retries: { attempts: 10, budgetMs: 1_000, baseDelayMs: 10, maxDelayMs: 10 },
        now: () => clock,
        // Each wait moves the clock on by what it waited: 400 ms, then 400 ms; the third would end at 1.2 s.
        sleep: async (wait) => {
          clock += wait;
          return true;
        },
      }).catch((e: unknown) => e);
      expect((error as { status: number }).status).toBe(502);
      expect(sim.received).toHaveLength(3);
    } finally {
      await sim.stop();
    }
  });

  test("a failure a retry cannot help (the upstream refuses the gateway's key) is not retried, and says so", async () => {
    const marker = "credentials";
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "fast", messages: [{ role: "user", content: `${marker} [sim status=401]` }] }),
    });
    expect(res.status).toBe(502);
    await res.text();
    expect(res.headers.get("x-should-retry")).toBe("false");
    expect(upstreamCalls(marker)).toHaveLength(1);
  });
});

test("the official SDK retries what the gateway gave up on, after the wait it was given", async () => {
  const marker = "sdk-retries";
  // The gateway's three calls fail; the SDK's retry reaches the fourth, which answers.
  const answer = await openai(1).chat.completions.create({ model: "fast", messages: [{ role: "user", content: `${marker} [sim status=503 times=3 retry-after-ms=5]` }] });
  expect(answer.choices[0]!.message.content).toContain("sim-fast");
  expect(upstreamCalls(marker)).toHaveLength(4);
});

/** A bare model call as the pipeline makes it, for the tests that drive callWithFailover with their own clock. */
function modelCall(format: "chat" | "responses", text: string): ModelCall {
  const body = format === "chat" ? { model: "fast", messages: [{ role: "user", content: text }] } : { model: "normal", input: text };
  return {
    format,
    tier: format === "chat" ? "fast" : "normal",
    stream: false,
    client: new Request("http://gateway.test/"),
    timeoutMs: 10_000,
    limits: { keepaliveMs: 15_000, idleMs: 300_000, maxEventBytes: 64 * 1024 * 1024, maxBodyBytes: 64 * 1024 * 1024 },
    body,
    canonical: () => {
      throw new Error("same-format calls only");
    },
    onStreamEnd: () => {},
    collect: false,
    pinnedModel: null,
  };
}

function candidate(name: string): Candidate {
  const model = DEFAULT_CONFIG.models[name]!;
  return { name, model: { ...model, apis: ["chat", "responses", "messages"] }, effort: "off" };
}
