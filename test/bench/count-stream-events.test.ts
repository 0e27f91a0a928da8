import { afterAll, describe, expect, test } from "bun:test";
import { countStreamEvents } from "../../src/bench/count-stream-events.ts";
import type { Scenario } from "../../src/bench/scenarios.ts";

// An upstream that answers with a fixed stream: comments, keep-alives, CRLF line ends and a last event without its blank line.
const STREAM = 'event: message_start\ndata: {"a":1}\n\n: keep-alive\n\nevent: ping\ndata: {}\r\n\r\ndata: {"b":2}\n\ndata: [DONE]';
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch: (request) => (new URL(request.url).pathname === "/fail" ? new Response("no", { status: 503 }) : new Response(STREAM, { headers: { "content-type": "text/event-stream" } })),
});
afterAll(() => server.stop(true));

const scenario = (path: string): Scenario => ({
  id: "long-stream/messages/cross",
  kind: "long-stream",
  bodyCase: "",
  format: "messages",
  mode: "stream",
  target: "cross",
  url: `http://127.0.0.1:${server.port}${path}`,
  headers: { "content-type": "application/json" },
  body: "{}",
  passes: ["load"],
  warmupRequests: 1,
});

describe("countStreamEvents", () => {
  test("counts the events with data the client gets; comments and keep-alives are not events", async () => {
    expect(await countStreamEvents(scenario("/"))).toBe(4);
  });

  test("an answer that is not 2xx is an error, not a count", async () => {
    await expect(countStreamEvents(scenario("/fail"))).rejects.toThrow(/HTTP 503/);
  });
});
