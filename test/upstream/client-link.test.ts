import { afterEach, describe, expect, test } from "bun:test";
import { newClientLink, sendEachToClient, type ClientLink } from "../../src/upstream/sse/client-link.ts";

/** A server whose one stream runs `pipe` on a direct controller, as the stream paths do. */
function serve(pipe: (link: ClientLink, controller: ReadableStreamDirectController) => Promise<void>) {
  return Bun.serve({
    port: 0,
    fetch: () => {
      const link = newClientLink();
      const source: Bun.DirectUnderlyingSource<Uint8Array> = { type: "direct", pull: (controller) => pipe(link, controller) };
      return new Response(new ReadableStream(source), { headers: { "content-type": "text/event-stream" } });
    },
  });
}

let server: ReturnType<typeof Bun.serve> | undefined;
afterEach(() => {
  server?.stop(true);
  server = undefined;
});

describe("sendEachToClient", () => {
  test("the client gets every piece, in order, as the text it was (other scripts too), and the link says so", async () => {
    const pieces = ["event: a\ndata: {\"t\":\"é 漢字 🙂\"}\n\n", "", "data: plain\n\n", "x".repeat(70_000), "data: end\n\n"];
    const outcome: { sent?: boolean; link?: ClientLink } = {};
    server = serve(async (link, controller) => {
      outcome.sent = await sendEachToClient(link, controller, pieces);
      outcome.link = link;
      controller.close();
    });
    const text = await (await fetch(`http://127.0.0.1:${server.port}/`)).text();
    expect(text).toBe(pieces.join(""));
    expect(outcome.sent).toBe(true);
    expect(outcome.link?.gone).toBe(false);
    expect(outcome.link?.writing).toBe(false);
  });

  test("nothing to send is no write and no failure", async () => {
    const outcome: { sent?: boolean } = {};
    server = serve(async (link, controller) => {
      outcome.sent = await sendEachToClient(link, controller, []);
      await sendEachToClient(link, controller, ["data: 1\n\n"]);
      controller.close();
    });
    expect(await (await fetch(`http://127.0.0.1:${server.port}/`)).text()).toBe("data: 1\n\n");
    expect(outcome.sent).toBe(true);
  });

  test("a client that left: the pieces stop going out, and the link is marked gone", async () => {
    const { promise: ended, resolve } = Promise.withResolvers<{ sent: boolean; link: ClientLink; rounds: number }>();
    server = serve(async (link, controller) => {
      const piece = "data: " + "y".repeat(64 * 1024) + "\n\n";
      let rounds = 0;
      let sent = true;
      // Bounded: far more than the socket buffers hold, so a write must find the client gone.
      while (sent && rounds < 2_000) {
        rounds++;
        sent = await sendEachToClient(link, controller, [piece, piece]);
      }
      resolve({ sent, link, rounds });
    });
    const controller = new AbortController();
    const response = await fetch(`http://127.0.0.1:${server.port}/`, { signal: controller.signal });
    const reader = response.body!.getReader();
    await reader.read();
    controller.abort();
    const { sent, link, rounds } = await ended;
    expect(sent).toBe(false);
    expect(link.gone).toBe(true);
    expect(link.writing).toBe(false);
    expect(rounds).toBeLessThan(2_000);
  });
});
