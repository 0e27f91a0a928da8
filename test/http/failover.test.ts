import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { WIRE_FORMATS, type WireFormat } from "../../src/canonical/wire-format.ts";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Failover until the first event: the tier's first model fails in each way an upstream can fail
 * before committing, and the second model answers; the client sees only the answer, with
 * `x-router-model` naming the model that gave it. The two models speak different APIs, so the
 * switch also crosses formats.
 */
const CONFIG: FileConfig = {
  ...UNCACHED_CONFIG,
  models: {
    ...DEFAULT_CONFIG.models,
    "first-choice": { ...DEFAULT_CONFIG.models["sim-normal"]!, upstreamId: "first-choice", apis: ["messages"] },
    "second-choice": { ...DEFAULT_CONFIG.models["sim-normal"]!, upstreamId: "second-choice", apis: ["responses"] },
  },
  tiers: { ...DEFAULT_CONFIG.tiers, normal: { ...DEFAULT_CONFIG.tiers.normal, models: ["first-choice", "second-choice"] } },
  server: { ...UNCACHED_CONFIG.server, upstreamTimeoutMs: 400 },
};

const PATHS: Readonly<Record<WireFormat, string>> = { messages: "/v1/messages", chat: "/v1/chat/completions", responses: "/v1/responses" };

function bodyFor(format: WireFormat, stream: boolean): Record<string, unknown> {
  const text = "Say something about failover";
  if (format === "messages") return { model: "normal", max_tokens: 256, stream, messages: [{ role: "user", content: text }] };
  if (format === "chat") return { model: "normal", stream, messages: [{ role: "user", content: text }] };
  return { model: "normal", stream, input: text };
}

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: CONFIG });
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(() => gw.stop(), 30_000);

async function call(format: WireFormat, stream: boolean, fault: string): Promise<Response> {
  return fetch(gw.url + PATHS[format], {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", "anthropic-version": "2023-06-01", "x-sim-fault": fault },
    body: JSON.stringify(bodyFor(format, stream)),
  });
}

const FAULTS = [
  ["500", "status=500"],
  ["529", "status=529"],
  ["a deadline to first byte", "delay=2000"],
  ["a malformed first event", "malformed=0"],
] as const;

describe.each(WIRE_FORMATS)("%s client", (format) => {
  describe.each([false, true])("stream=%p", (stream) => {
    test.each(FAULTS)("first model fails with %s → the second answers", async (_name, fault) => {
      const response = await call(format, stream, `${fault}; model=first-choice`);
      const text = await response.text();
      expect(response.status).toBe(200);
      expect(response.headers.get("x-router-model")).toBe("second-choice");
      // Streams split the sentence across deltas; the model name and the prompt stay together.
      expect(text).toContain("second-choice: Say something");
      if (stream) expect(response.headers.get("content-type")).toStartWith("text/event-stream");
    });

    test("every candidate fails → one clean error in the caller's format, with the last reason", async () => {
      const response = await call(format, stream, "status=503");
      const body = (await response.json()) as { type?: string; error: { type: string; message: string } };
      expect(response.status).toBe(format === "messages" ? 529 : 503);
      // Every model overloaded: a retry in a moment may well succeed, and the SDKs are told so.
      expect(response.headers.get("x-should-retry")).toBe("true");
      expect(Number(response.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
      expect(body.error.type).toBe("overloaded_error");
      expect(body.error.message).toStartWith("all 2 candidate models failed; last:");
      if (format === "messages") expect(body.type).toBe("error");
      expect(response.headers.get("x-router-tier")).toBe("normal");
    });
  });
});

test("a bad request is not retried on another model", async () => {
  const before = gw.gateway.sim!.received.length;
  const response = await call("chat", false, "status=400; message=\"bad field\"");
  expect(response.status).toBe(400);
  expect(gw.gateway.sim!.received.length - before).toBe(1);
});
