import { afterEach, describe, expect, test } from "bun:test";
import { newClientLink, sendToClient, type ClientLink } from "../../src/upstream/sse/client-link.ts";
import { readNext, type ReadManyResult } from "../../src/upstream/sse/read-first-event.ts";

/** A controller that records what is written and flushed; `wait` makes the write of that piece wait (backpressure). */
function recorder(wait?: (piece: string) => boolean, took = (piece: Uint8Array | string) => piece.length) {
  const written: string[] = [];
  let flushes = 0;
  const controller = {
    write(piece: Uint8Array | string): number | Promise<number> {
      const text = typeof piece === "string" ? piece : Buffer.from(piece).toString();
      written.push(text);
      return wait?.(text) ? Promise.resolve(took(piece)) : took(piece);
    },
    flush() {
      flushes++;
    },
  } as unknown as ReadableStreamDirectController;
  return { controller, written, flushes: () => flushes };
}

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

describe("sendToClient, through a served stream", () => {
  test("the client gets every piece, in order, as the text it was (other scripts too), and the link says so", async () => {
    const pieces = ["event: a\ndata: {\"t\":\"é 漢字 🙂\"}\n\n", "", "data: plain\n\n", "x".repeat(70_000), "data: end\n\n"];
    const outcome: { sent?: boolean; link?: ClientLink } = {};
    server = serve(async (link, controller) => {
      outcome.sent = true;
      for (const piece of pieces) outcome.sent = outcome.sent && (await sendToClient(link, controller, piece));
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
      outcome.sent = await sendToClient(link, controller, "");
      await sendToClient(link, controller, "data: 1\n\n");
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
        sent = await sendToClient(link, controller, piece);
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

describe("sendToClient and the write it makes", () => {
  test("writes the client takes at once are answered at once, not as a promise, and flushed once", () => {
    const { controller, written, flushes } = recorder();
    const link = newClientLink();
    expect(sendToClient(link, controller, "data: 1\n\n")).toBe(true);
    expect(sendToClient(link, controller, "")).toBe(true);
    expect(sendToClient(link, controller, Buffer.from("data: 3\n\n"))).toBe(true);
    expect(written).toEqual(["data: 1\n\n", "data: 3\n\n"]);
    expect(flushes()).toBe(2);
    expect(link.writing).toBe(false);
  });

  test("a stream's last write is written and left for the response's end to send: no flush, whether it waited or not", async () => {
    const { controller, written, flushes } = recorder((piece) => piece === "waits");
    const link = newClientLink();
    expect(sendToClient(link, controller, "data: last\n\n", false)).toBe(true);
    expect(await sendToClient(link, controller, "waits", false)).toBe(true);
    expect(written).toEqual(["data: last\n\n", "waits"]);
    expect(flushes()).toBe(0);
    expect(link.writing).toBe(false);
  });

  test("a write that waits: the answer is a promise, and the flush follows once the client has taken it", async () => {
    const { controller, written, flushes } = recorder((piece) => piece === "b");
    const link = newClientLink();
    const sent = sendToClient(link, controller, "b");
    expect(sent).toBeInstanceOf(Promise);
    expect(link.writing).toBe(true);
    expect(flushes()).toBe(0);
    expect(await sent).toBe(true);
    expect(written).toEqual(["b"]);
    expect(flushes()).toBe(1);
    expect(link.writing).toBe(false);
  });

  test("a write the client took nothing of: false at once, the link gone, nothing more written or flushed", async () => {
    const gone = recorder(undefined, () => 0);
    const link = newClientLink();
    expect(sendToClient(link, gone.controller, "a")).toBe(false);
    expect(gone.written).toEqual(["a"]);
    expect(gone.flushes()).toBe(0);
    expect(link.gone).toBe(true);
    const waited = recorder(() => true, () => 0);
    const other = newClientLink();
    expect(await sendToClient(other, waited.controller, "a")).toBe(false);
    expect(waited.flushes()).toBe(0);
    expect(other.gone).toBe(true);
  });
});

describe("readNext", () => {
  const reader = (results: Array<ReadManyResult | Promise<ReadManyResult>>) => ({
    readMany: () => results.shift() ?? { done: true, value: [] },
    read: async () => ({ done: true as const }),
    cancel: async () => {},
  });

  test("chunks already queued come back at once, joined; a read that waits is a promise", async () => {
    const queued = readNext(reader([{ done: false, value: [Buffer.from("data: 1\n\n"), Buffer.from("data: 2\n\n")] }]));
    expect(queued).not.toBeInstanceOf(Promise);
    expect(Buffer.from(queued as Uint8Array).toString()).toBe("data: 1\n\ndata: 2\n\n");
    const waiting = readNext(reader([Promise.resolve({ done: false, value: [Buffer.from("x")] })]));
    expect(waiting).toBeInstanceOf(Promise);
    expect(Buffer.from((await waiting) as Uint8Array).toString()).toBe("x");
  });

  test("after a read that waited, one chunk a read while chunks are small; a burst's big chunk goes back to reading all queued", async () => {
    const small = Buffer.from("data: 1\n\n");
    const big = Buffer.alloc(4096, 0x20);
    const calls: string[] = [];
    const reads = [small, big];
    const trickle = {
      readMany: (): ReadManyResult | Promise<ReadManyResult> => {
        calls.push("readMany");
        return calls.length === 1 ? Promise.resolve({ done: false, value: [small] }) : { done: false, value: [small, small] };
      },
      read: async () => {
        calls.push("read");
        const value = reads.shift();
        return value ? { done: false as const, value } : { done: true as const };
      },
      cancel: async () => {},
    };
    expect(await readNext(trickle)).toBe(small);
    expect(await readNext(trickle)).toBe(small);
    expect(await readNext(trickle)).toBe(big);
    const queued = readNext(trickle);
    expect(queued).not.toBeInstanceOf(Promise);
    expect((queued as Uint8Array).byteLength).toBe(small.byteLength * 2);
    expect(calls).toEqual(["readMany", "read", "read", "readMany"]);
  });

  test("an empty read goes on to the next; the end is null", async () => {
    expect(readNext(reader([{ done: true, value: [] }]))).toBeNull();
    const next = readNext(reader([{ done: false, value: [] }, Promise.resolve({ done: false, value: [Buffer.from("y")] })]));
    expect(Buffer.from((await next) as Uint8Array).toString()).toBe("y");
    expect(await readNext(reader([Promise.resolve({ done: true, value: [] })]))).toBeNull();
  });
});
