import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * A translated stream whose whole answer came in one read goes to the client in one send: the
 * response's head, every event and the closing chunk. The stream used to wait for its slot's
 * release before its first write, which let the server send the head on its own (two sends, and
 * two wake-ups of the client, for an answer the gateway had whole). Read from a raw socket, as the
 * bytes arrive.
 */

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.account("Enterprise"));
}, 30_000);

afterAll(async () => {
  await gw.stop();
}, 30_000);

/**
 * A raw HTTP/1.1 client in a process of its own (in this one it would read only when the gateway's
 * turn is over, every send of it at once): what each of its reads of one streamed answer got, up to
 * the closing chunk.
 */
const CLIENT = `
const { hostname, port, key, body } = JSON.parse(process.env.STREAM_REQUEST);
const reads = [];
const socket = await Bun.connect({ hostname, port, socket: {
  data(_s, bytes) {
    reads.push(Buffer.from(bytes).toString("utf8"));
    if (reads.join("").endsWith("\\r\\n0\\r\\n\\r\\n")) { console.log(JSON.stringify(reads)); process.exit(0); }
  },
  close() { console.log(JSON.stringify(reads)); process.exit(0); },
} });
socket.write("POST /v1/messages HTTP/1.1\\r\\nhost: " + hostname + "\\r\\nx-api-key: " + key + "\\r\\nanthropic-version: 2023-06-01\\r\\ncontent-type: application/json\\r\\ncontent-length: " + Buffer.byteLength(body) + "\\r\\n\\r\\n" + body);
`;

async function readsOf(body: object): Promise<string[]> {
  const { hostname, port } = new URL(gw.url);
  const request = JSON.stringify({ hostname, port: Number(port), key, body: JSON.stringify(body) });
  const client = Bun.spawn([process.execPath, "-e", CLIENT], { env: { ...process.env, STREAM_REQUEST: request }, stdout: "pipe", stderr: "inherit" });
  const [out, code] = await Promise.all([new Response(client.stdout).text(), client.exited]);
  expect(code).toBe(0);
  return JSON.parse(out) as string[];
}

describe("a stream the gateway has whole", () => {
  test("a Messages client on a Chat model (translated): head, events and end in one read", async () => {
    // `fast` runs on a model that speaks Chat Completions: the answer is translated.
    const reads = await readsOf({ model: "fast", max_tokens: 64, stream: true, messages: [{ role: "user", content: "Hello" }] });
    const text = reads.join("");
    expect(text.startsWith("HTTP/1.1 200 OK\r\n")).toBe(true);
    expect(text).toContain("x-router-model: sim-fast");
    expect(text).toContain('event: message_stop\ndata: {"type":"message_stop"}');
    expect(text.endsWith("\r\n0\r\n\r\n")).toBe(true);
    expect(reads.length).toBe(1);
  }, 30_000);
});
