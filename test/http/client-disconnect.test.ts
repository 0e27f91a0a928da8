import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * An upstream that never finishes and reports when its caller goes away: the first SSE event
 * for streams and the first content (so the gateway commits), nothing at all for non-stream requests.
 */
function startHangingUpstream() {
  let notifyArrived: () => void = () => {};
  let notifyGone: () => void = () => {};
  const next = () => ({
    arrived: new Promise<void>((resolve) => (notifyArrived = resolve)),
    gone: new Promise<void>((resolve) => (notifyGone = resolve)),
  });
  let current = next();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      const body = (await request.json()) as { stream?: boolean };
      request.signal.addEventListener("abort", () => notifyGone(), { once: true });
      notifyArrived();
      if (!body.stream) return new Promise<Response>(() => {});
      const encoder = new TextEncoder();
      return new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(encoder.encode('event: message_start\ndata: {"type":"message_start","message":{"model":"sim-normal"}}\n\n'));
            controller.enqueue(encoder.encode('event: content_block_start\ndata: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}\n\n'));
          },
          cancel() {
            notifyGone();
          },
        }),
        { headers: { "content-type": "text/event-stream" } },
      );
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    expect: () => (current = next()),
    get arrived() {
      return current.arrived;
    },
    get gone() {
      return current.gone;
    },
    stop: () => server.stop(true),
  };
}

let upstream: ReturnType<typeof startHangingUpstream>;
let gw: TestGateway;
let key: string;

beforeAll(async () => {
  upstream = startHangingUpstream();
  gw = await startTestGateway({ fileConfig: { ...DEFAULT_CONFIG, providers: { sim: { kind: "sim", baseUrl: upstream.url } } } });
  ({ key } = await gw.account("Enterprise"));
}, 30_000);
afterAll(async () => {
  await gw.stop();
  upstream.stop();
}, 30_000);

const request = (stream: boolean, signal: AbortSignal) =>
  fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
    body: JSON.stringify({ model: "normal", max_tokens: 64, stream, messages: [{ role: "user", content: "hi" }] }),
    signal,
  });

describe("a client that goes away aborts the upstream call", () => {
  test("while the gateway waits for a non-stream answer", async () => {
    upstream.expect();
    const client = new AbortController();
    const pending = request(false, client.signal).catch((error: unknown) => error);
    await upstream.arrived;
    client.abort();
    await upstream.gone;
    expect(await pending).toBeInstanceOf(Error);
  });

  test("in the middle of a stream", async () => {
    upstream.expect();
    const client = new AbortController();
    const response = await request(true, client.signal);
    expect(response.status).toBe(200);
    const reader = response.body!.getReader();
    const first = await reader.read();
    expect(new TextDecoder().decode(first.value)).toContain('"model":"normal"');
    client.abort();
    await upstream.gone;
  });
});
