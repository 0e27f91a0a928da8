import { describe, expect, test } from "bun:test";
import { createMemoryLimiter } from "../../src/limits/create-memory-limiter.ts";
import { releaseWhenDone } from "../../src/limits/release-when-done.ts";

const bytes = (s: string) => new TextEncoder().encode(s);

function source(chunks: string[], end: "close" | "error" | "hang") {
  let cancelled = false;
  const queue = [...chunks];
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const next = queue.shift();
        if (next !== undefined) return controller.enqueue(bytes(next));
        if (end === "close") return controller.close();
        if (end === "error") return controller.error(new Error("upstream reset"));
        return new Promise<void>(() => {}); // an upstream that says nothing more
      },
      cancel() {
        cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, cancelled: () => cancelled };
}

async function slot() {
  const limiter = createMemoryLimiter();
  const d = await limiter.acquire({ accountId: "a", plan: "Starter", limits: { requestsPerMinute: null, concurrentRequests: 1, tokensPerMonth: null } });
  if (!d.ok) throw d.error;
  let releases = 0;
  return {
    release: () => {
      releases++;
      d.lease.release();
    },
    releases: () => releases,
    active: () => limiter.activeOf("a"),
  };
}

describe("releaseWhenDone", () => {
  test("normal end: every byte passes, the slot is released once, after the last chunk", async () => {
    const s = await slot();
    const wrapped = releaseWhenDone(source(["event: a\n\n", "event: b\n\n"], "close").stream, s.release);
    const reader = wrapped.getReader();
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("event: a\n\n");
    expect(s.active()).toBe(1);
    expect(new TextDecoder().decode((await reader.read()).value)).toBe("event: b\n\n");
    expect((await reader.read()).done).toBe(true);
    expect(s.releases()).toBe(1);
    expect(s.active()).toBe(0);
  });

  test("upstream error mid-stream: the error reaches the reader and the slot is released", async () => {
    const s = await slot();
    const wrapped = releaseWhenDone(source(["partial"], "error").stream, s.release);
    const reader = wrapped.getReader();
    await reader.read();
    await expect(reader.read()).rejects.toThrow("upstream reset");
    await reader.closed.catch(() => {});
    expect(s.active()).toBe(0);
    expect(s.releases()).toBe(1);
  });

  test("client gone (the body is cancelled): the slot is released and the upstream side cancelled", async () => {
    const s = await slot();
    const src = source(["first"], "hang");
    const wrapped = releaseWhenDone(src.stream, s.release);
    const reader = wrapped.getReader();
    await reader.read();
    await reader.cancel("client went away");
    expect(s.active()).toBe(0);
    expect(src.cancelled()).toBe(true);
    expect(s.releases()).toBe(1);
  });

  test("through a real server: a client that disconnects mid-stream frees the slot", async () => {
    const s = await slot();
    let serverSide: { cancelled: () => boolean } | undefined;
    const server = Bun.serve({
      port: 0,
      fetch() {
        const src = source(["data: 1\n\n"], "hang");
        serverSide = src;
        return new Response(releaseWhenDone(src.stream, s.release), { headers: { "content-type": "text/event-stream" } });
      },
    });
    try {
      const controller = new AbortController();
      const res = await fetch(`http://127.0.0.1:${server.port}/`, { signal: controller.signal });
      const reader = res.body!.getReader();
      await reader.read();
      controller.abort();
      for (let i = 0; i < 100 && s.active() > 0; i++) await Bun.sleep(10);
      expect(s.active()).toBe(0);
      expect(serverSide?.cancelled()).toBe(true);
    } finally {
      server.stop(true);
    }
  });
});
