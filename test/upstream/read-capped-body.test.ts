import { afterAll, describe, expect, test } from "bun:test";
import { gzipSync } from "node:zlib";
import { GatewayError } from "../../src/canonical/gateway-error.ts";
import { readCappedBody } from "../../src/upstream/read-capped-body.ts";

const CAP = 64 * 1024;
const big = Buffer.alloc(4 * CAP, "a");
const small = Buffer.from(JSON.stringify({ answer: "x".repeat(1000) }));

/** Answers as a real upstream would: a length, chunked without one, or gzip that inflates past the cap. */
const server = Bun.serve({
  port: 0,
  hostname: "127.0.0.1",
  fetch(request) {
    const path = new URL(request.url).pathname;
    if (path === "/length") return new Response(small, { headers: { "content-type": "application/json" } });
    if (path === "/chunked-big")
      return new Response(
        new ReadableStream({
          pull(controller) {
            controller.enqueue(big.subarray(0, CAP));
            controller.enqueue(big.subarray(0, CAP));
            controller.close();
          },
        }),
      );
    if (path === "/gzip-big") return new Response(gzipSync(big), { headers: { "content-encoding": "gzip" } });
    return new Response(gzipSync(small), { headers: { "content-encoding": "gzip" } });
  },
});
afterAll(() => server.stop(true));

const read = async (path: string) => readCappedBody(await fetch(`http://127.0.0.1:${server.port}${path}`), CAP);

describe("readCappedBody", () => {
  test("a body whose declared length is within the cap is read whole", async () => {
    expect(Buffer.from(await read("/length")).equals(small)).toBe(true);
  });

  test("a compressed body is judged by its inflated size, not its declared length", async () => {
    expect(Buffer.from(await read("/gzip-small")).equals(small)).toBe(true);
    // Its declared length is a few hundred bytes; inflated it is four times the cap.
    const error = await read("/gzip-big").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
    expect((error as GatewayError).message).toContain(`larger than ${CAP} bytes`);
  });

  test("a body without a length is cut once it passes the cap", async () => {
    const error = await read("/chunked-big").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(GatewayError);
  });
});
