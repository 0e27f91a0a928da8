import { afterAll, beforeAll, expect, test } from "bun:test";
import type { WireFormat } from "../../src/canonical/wire-format.ts";
import {
  FIRST,
  SECOND,
  oneTurn,
  post,
  readMetric,
  routeOf,
  simMark,
  startRoutingGateway,
  twoModelConfig,
  upstreamModelsSince,
  upstreamReached,
  type RoutingGateway,
} from "./start-routing-gateway.ts";

/**
 * The per-model circuit breaker through HTTP: after `failureThreshold` failures in a row the first
 * model is not even called; after the cool-down one probe goes to it, and its outcome closes or
 * reopens the breaker. Every request has its own text, so no conversation pin steers it.
 */
const FAILURE_THRESHOLD = 2;
const COOL_DOWN_MS = 2_000;
const CONFIG = twoModelConfig({ routing: { rules: [], breaker: { failureThreshold: FAILURE_THRESHOLD, coolDownMs: COOL_DOWN_MS } } });
const FAIL_FIRST = { "x-sim-fault": `status=500; model=${FIRST}` };
const BREAKER = "routelane_circuit_breaker_state";
const OPEN = 2;
const CLOSED = 0;

let gw: RoutingGateway;
let n = 0;

beforeAll(async () => {
  gw = await startRoutingGateway(CONFIG);
}, 60_000);
afterAll(() => gw.stop(), 30_000);

/** One request with a text of its own; what it was answered with and which models the sim saw. */
async function ask(format: WireFormat, headers: Record<string, string> = {}): Promise<{ status: number; model: string | null; upstream: string[] }> {
  const mark = simMark(gw);
  const response = await post(gw, format, oneTurn(format, `Tell me about breakers, take ${++n}`), headers);
  await response.text();
  return { status: response.status, model: routeOf(response).model, upstream: upstreamModelsSince(gw, mark) };
}

async function openFirstBreaker(): Promise<void> {
  for (let i = 0; i < FAILURE_THRESHOLD; i++) {
    expect(await ask("messages", FAIL_FIRST)).toEqual({ status: 200, model: SECOND, upstream: [FIRST, SECOND] });
  }
  expect(await readMetric(gw, BREAKER, { model: FIRST })).toBe(OPEN);
}

/** The cool-down is wall-clock time inside the gateway: nothing to await but its passing. */
const coolDown = () => Bun.sleep(COOL_DOWN_MS + 50);

test("the breaker opens after the threshold: the first model is no longer called, in any format", async () => {
  await openFirstBreaker();
  for (const format of ["messages", "chat", "responses"] as const) {
    // No fault any more: the first model would answer, but the open breaker keeps it out.
    expect(await ask(format)).toEqual({ status: 200, model: SECOND, upstream: [SECOND] });
  }
});

test("after the cool-down exactly one probe goes to the first model, and its success closes the breaker", async () => {
  await coolDown();
  const mark = simMark(gw);
  // The probe is held at the upstream for a while, so another request arrives while it is out.
  const probe = ask("messages", { "x-sim-fault": `delay=1000; model=${FIRST}` });
  await upstreamReached(gw, mark, FIRST);
  expect(await ask("chat")).toEqual({ status: 200, model: SECOND, upstream: [SECOND] });
  expect(await probe).toMatchObject({ status: 200, model: FIRST });
  // The probe and the request beside it: the first model was asked once, and only by the probe.
  expect(upstreamModelsSince(gw, mark)).toEqual([FIRST, SECOND]);
  expect(await readMetric(gw, BREAKER, { model: FIRST })).toBe(CLOSED);
  expect(await ask("responses")).toEqual({ status: 200, model: FIRST, upstream: [FIRST] });
});

test("a failed probe reopens the breaker at once, without waiting for the threshold again", async () => {
  await openFirstBreaker();
  await coolDown();
  expect(await ask("messages", FAIL_FIRST)).toEqual({ status: 200, model: SECOND, upstream: [FIRST, SECOND] });
  expect(await readMetric(gw, BREAKER, { model: FIRST })).toBe(OPEN);
  expect(await ask("messages")).toEqual({ status: 200, model: SECOND, upstream: [SECOND] });
});

test("with every breaker open the tier answers a clean overloaded error without calling any upstream", async () => {
  const both = { "x-sim-fault": "status=500" };
  for (let i = 0; i < FAILURE_THRESHOLD; i++) await ask("chat", both);
  expect(await readMetric(gw, BREAKER, { model: SECOND })).toBe(OPEN);
  const mark = simMark(gw);
  const response = await post(gw, "chat", oneTurn("chat", "Anyone there?"));
  const body = (await response.json()) as { error: { type: string; code: string } };
  expect(response.status).toBe(503);
  expect(response.headers.get("retry-after")).toBe("5");
  expect(body.error).toMatchObject({ type: "overloaded_error", code: "no_model_available" });
  expect(upstreamModelsSince(gw, mark)).toEqual([]);
  // No model answered, nor was one called: none is named; the tier and the request id still are.
  expect(response.headers.get("x-router-model")).toBeNull();
  expect(response.headers.get("x-router-effort")).toBeNull();
  expect(response.headers.get("x-router-tier")).toBe("normal");
  expect(response.headers.get("x-router-request-id")).toMatch(/\S/);
});
