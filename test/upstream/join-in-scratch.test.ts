import { afterAll, describe, expect, test } from "bun:test";
import { wireApi } from "../../src/wire/wire-apis.ts";
import { forwardSameFormat, type ForwardRequest } from "../../src/upstream/passthrough/forward-same-format.ts";
import { joinInScratch, type BodyPieces } from "../../src/upstream/join-in-scratch.ts";

const bytesOf = (pieces: BodyPieces): Buffer => Buffer.concat(pieces.map((piece) => (typeof piece === "string" ? Buffer.from(piece) : piece)));

/** A body of about `size` bytes cut from a client's buffer, as `encodeAsSent` makes one: the head rewritten, the rest a view. */
function piecesOf(size: number, fill: string): BodyPieces {
  const client = Buffer.from(`{"model":"normal","messages":"${fill.repeat(size)}"}`);
  return ['{"model":"sim-all-model",', client.subarray('{"model":"normal",'.length)];
}

describe("joinInScratch", () => {
  test("joins text as UTF-8 and cuts as their bytes, in order", () => {
    const pieces: BodyPieces = ["{", Buffer.from('"a":"café 🚀"'), ",", '"b":"naïve — “quoted”"', Buffer.alloc(0), "}"];
    const joined = joinInScratch(pieces);
    expect(joined).toBeInstanceOf(Uint8Array);
    expect(Buffer.from(joined as Uint8Array).equals(bytesOf(pieces))).toBe(true);
    expect(JSON.parse(Buffer.from(joined as Uint8Array).toString())).toEqual({ a: "café 🚀", b: "naïve — “quoted”" });
  });

  test("the next join reuses the same memory: a view is the caller's only until then", () => {
    const first = joinInScratch(piecesOf(100_000, "a")) as Uint8Array;
    const kept = Buffer.from(first);
    const second = joinInScratch(piecesOf(100_000, "b")) as Uint8Array;
    expect(second.buffer).toBe(first.buffer);
    expect(Buffer.from(first).equals(kept)).toBe(false);
    expect(Buffer.from(second).equals(bytesOf(piecesOf(100_000, "b")))).toBe(true);
  });

  test("a body over 4 MiB goes as a Blob of its own, and the scratch does not grow for it", async () => {
    const pieces = piecesOf(5 * 1024 * 1024, "c");
    const joined = joinInScratch(pieces);
    expect(joined).toBeInstanceOf(Blob);
    expect(Buffer.from(await (joined as Blob).arrayBuffer()).equals(bytesOf(pieces))).toBe(true);
    const next = joinInScratch(piecesOf(3 * 1024 * 1024, "d")) as Uint8Array;
    expect(next.buffer.byteLength).toBeLessThanOrEqual(4 * 1024 * 1024);
  });
});

describe("a same-format call sends its own body, joined in the shared scratch", () => {
  const received: Buffer[] = [];
  const upstream = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push(Buffer.from(await request.arrayBuffer()));
      return Response.json({ ok: true });
    },
  });
  afterAll(() => upstream.stop(true));

  const call = (body: BodyPieces): ForwardRequest => ({
    url: `http://127.0.0.1:${upstream.port}/v1/messages`,
    headers: { "content-type": "application/json" },
    body,
    stream: false,
    client: new Request("http://gateway.test/v1/messages", { method: "POST" }),
    timeoutMs: 10_000,
    api: wireApi("messages"),
    upstreamModelId: "sim-all-model",
    tier: "sim-all-model",
    limits: { keepaliveMs: 10_000, idleMs: 10_000, maxEventBytes: 1 << 20, maxBodyBytes: 1 << 20 },
  });

  // fetch copies the view when it is called: a second call joining into the same scratch at once
  // (before the first has sent a byte) must not change what the first sends.
  test("calls started back to back each deliver their own bytes", async () => {
    const sizes = [1_000, 100_000, 1_000_000];
    const bodies = sizes.flatMap((size) => [piecesOf(size, "x"), piecesOf(size, "y")]);
    const answers = await Promise.all(bodies.map((body) => forwardSameFormat(call(body))));
    for (const answer of answers) expect(JSON.parse(Buffer.from(answer.body as Uint8Array).toString())).toEqual({ ok: true });
    const expected = bodies.map(bytesOf);
    expect(received.length).toBe(expected.length);
    for (const body of expected) expect(received.some((got) => got.equals(body))).toBe(true);
  });
});
