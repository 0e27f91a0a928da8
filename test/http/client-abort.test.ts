import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import type { RequestRecord } from "../../src/canonical/request-record.ts";
import { knobConfig, KNOB_TIER_API, startKnobUpstream, type KnobUpstream, KNOB_PATHS, knobRequest, type KnobFormat } from "../helpers/start-knob-upstream.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Issue 18 item 6: a client that leaves is `clientAborted` on every path (before the first byte,
 * in the middle of a stream, same-format and translated), never an upstream fault, and it is
 * counted apart from the upstream's faults in the metrics.
 */

let upstream: KnobUpstream;
let gw: TestGateway;
let key: string;
const logDir = mkdtempSync(join(tmpdir(), "routelane-abort-"));
const logFile = join(logDir, "requests.log");
const waiting = new Map<string, (record: RequestRecord) => void>();
const records = new Map<string, RequestRecord>();

beforeAll(async () => {
  upstream = startKnobUpstream();
  gw = await startTestGateway({ fileConfig: knobConfig(upstream.url), env: { ROUTELANE_LOG_DESTINATION: logFile, ROUTELANE_LOG_LEVEL: "info" } });
  ({ key } = await gw.account("Enterprise"));
  gw.gateway.observers.push((record) => {
    records.set(record.requestId, record);
    waiting.get(record.requestId)?.(record);
  });
}, 30_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop();
  rmSync(logDir, { recursive: true, force: true });
}, 30_000);

/** The request's record, as every observer (log, metrics, usage) gets it. */
const recordOf = (requestId: string): Promise<RequestRecord> =>
  records.has(requestId) ? Promise.resolve(records.get(requestId)!) : new Promise((resolve) => waiting.set(requestId, resolve));

/** The record of the one request the observers see next (a request whose client left before any header). */
const nextRecord = (): Promise<RequestRecord> =>
  new Promise((resolve) => {
    const before = new Set(records.keys());
    const observer = (record: RequestRecord): void => {
      if (before.has(record.requestId)) return;
      gw.gateway.observers.splice(gw.gateway.observers.indexOf(observer), 1);
      resolve(record);
    };
    gw.gateway.observers.push(observer);
  });

type Tier = keyof typeof KNOB_TIER_API;
const PREAMBLE: Record<KnobFormat, number> = { messages: 2, chat: 1, responses: 3 };

const open = (format: KnobFormat, tier: string, text: string, stream: boolean, signal: AbortSignal): Promise<Response> =>
  fetch(gw.url + KNOB_PATHS[format], {
    method: "POST",
    headers: { "content-type": "application/json", "x-api-key": key, "anthropic-version": "2023-06-01" },
    body: JSON.stringify(knobRequest(format, tier, text, stream)),
    signal,
  });

const cases: Array<[KnobFormat, Tier, string]> = [];
for (const format of ["messages", "chat", "responses"] as const) {
  for (const tier of Object.keys(KNOB_TIER_API) as Tier[]) cases.push([format, tier, KNOB_TIER_API[tier] === format ? "same-format" : `translated from ${KNOB_TIER_API[tier]}`]);
}

const metric = async (name: string, labels: string): Promise<number> => {
  const line = (await gw.gateway.metrics.render()).split("\n").find((l) => l.startsWith(`${name}{`) && l.includes(labels));
  return line ? Number(line.split(" ").at(-1)) : 0;
};

describe("a client that leaves in the middle of a stream", () => {
  test.each(cases)("%s client, tier %s (%s): clientAborted, not an upstream fault", async (format, tier) => {
    const client = new AbortController();
    const gone = upstream.gone + 1;
    const response = await open(format, tier, `hi [knob stallAfter=${PREAMBLE[KNOB_TIER_API[tier]] + 3}]`, true, client.signal);
    const requestId = response.headers.get("x-router-request-id")!;
    const reader = response.body!.getReader();
    await reader.read();
    client.abort();
    await upstream.waitGone(gone);
    const record = await recordOf(requestId);
    expect(record.clientAborted).toBe(true);
    expect(record.streamError).toBeUndefined();
    expect(record.status).toBe(200);
    // What was sent before it left is billed, counted by the gateway.
    expect(record.usage?.estimated).toBe(true);
    expect(record.usage?.outputTokens).toBeGreaterThan(0);
  });
});

describe("a client that leaves before the first byte", () => {
  test.each(cases.flatMap(([format, tier, path]) => [true, false].map((stream) => [format, tier, path, stream] as const)))(
    "%s client, tier %s (%s), stream %p: clientAborted, status 499",
    async (format, tier, _path, stream) => {
      const client = new AbortController();
      const gone = upstream.gone + 1;
      const arrived = upstream.arrived + 1;
      const recorded = nextRecord();
      const pending = open(format, tier, "hi [knob delayMs=60000]", stream, client.signal).catch((error: unknown) => error);
      // The gateway is waiting on the upstream, which has the request.
      await upstream.waitArrived(arrived);
      client.abort();
      await upstream.waitGone(gone);
      expect(await pending).toBeInstanceOf(Error);
      const record = await recorded;
      expect(record.clientAborted).toBe(true);
      expect(record.status).toBe(499);
    },
  );
});

describe("client aborts are counted apart from upstream faults", () => {
  test("metrics and the request log", async () => {
    const abortsBefore = await metric("routelane_client_aborts_total", 'endpoint="chat",tier="fast",stream="true"');
    const errorsBefore = await metric("routelane_stream_errors_total", 'endpoint="chat",tier="fast"');
    // One client that leaves, one upstream that cuts the stream.
    const client = new AbortController();
    const gone = upstream.gone + 1;
    const left = await open("chat", "fast", "hi [knob stallAfter=3]", true, client.signal);
    const leftId = left.headers.get("x-router-request-id")!;
    await left.body!.getReader().read();
    client.abort();
    await upstream.waitGone(gone);
    await recordOf(leftId);
    const cut = await open("chat", "fast", "hi [knob cutAfter=3]", true, new AbortController().signal);
    await cut.text();
    const cutRecord = await recordOf(cut.headers.get("x-router-request-id")!);
    expect(cutRecord.clientAborted).toBe(false);
    expect(cutRecord.streamError).toContain("upstream connection broke mid-stream");
    expect(await metric("routelane_client_aborts_total", 'endpoint="chat",tier="fast",stream="true"')).toBe(abortsBefore + 1);
    expect(await metric("routelane_stream_errors_total", 'endpoint="chat",tier="fast"')).toBe(errorsBefore + 1);
    await gw.gateway.requestLog.flush();
    const line = readFileSync(logFile, "utf8")
      .split("\n")
      .filter(Boolean)
      .map((l) => JSON.parse(l) as { requestId?: string; clientAborted?: boolean; streamError?: string })
      .find((l) => l.requestId === leftId);
    expect(line?.clientAborted).toBe(true);
    expect(line?.streamError).toBeUndefined();
  });
});
