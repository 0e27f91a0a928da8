import type { Config } from "../config/schema.ts";
import { pipeStream } from "../upstream/passthrough/pipe-stream.ts";
import type { ByteReader, ReadManyResult } from "../upstream/sse/read-first-event.ts";
import { wireApi } from "../wire/wire-apis.ts";
import { BENCH_MODELS, SAME_FORMAT_TIER } from "./build-bench-config.ts";
import type { BenchFormat } from "./scenarios.ts";

/** A reader whose `readMany` is always there: the pipe and the floor both read through it. */
type EventReader = ByteReader & { readMany(): Promise<ReadManyResult> };

/**
 * A reader that hands over one event a read, each a turn of the event loop after the last and
 * in bytes of its own, as a model's stream arrives: what makes every event cost a read, a write
 * and a flush.
 */
function oneEventARead(events: readonly Uint8Array[]): EventReader {
  let next = 1;
  const readMany = (): Promise<ReadManyResult> =>
    new Promise((resolve) => setImmediate(() => resolve(next < events.length ? { done: false, value: [new Uint8Array(events[next++]!)] } : { done: true, value: [] })));
  return {
    readMany,
    // Not taken while readMany is there (readNext prefers it); the interface asks for it.
    read: () => readMany().then((result) => (result.done ? { done: true as const } : { done: false as const, value: result.value[0]! })),
    cancel: async () => {},
  };
}

/** The floor: each read written and flushed by a bare direct stream, nothing looked at. */
function bareStream(reader: EventReader, first: Uint8Array): ReadableStream<Uint8Array> {
  const source: Bun.DirectUnderlyingSource<Uint8Array> = {
    type: "direct",
    async pull(controller) {
      controller.write(first);
      controller.flush();
      for (;;) {
        const read = await reader.readMany();
        for (const chunk of read.value) controller.write(chunk);
        controller.flush();
        if (read.done) return;
      }
    },
  };
  return new ReadableStream(source);
}

/**
 * One call: `atOnce` streams of a same-format answer of `events`, each one event a read, through
 * the gateway's pipe (`pipe`) or the bare direct stream (`bare`), each read to its end by Bun's
 * Response as the server reads a body; returns the bytes read. Several at once, as a loaded
 * gateway holds them: their reads share the event loop's turns. Both forms share the reader and
 * the Response, so the pipe's own cost per read is their difference.
 */
export function streamOneEventARead(format: BenchFormat, events: readonly Uint8Array[], form: "pipe" | "bare", config: Config, atOnce: number): () => Promise<number> {
  const api = wireApi(format);
  const client = new Request("http://bench.invalid/", { method: "POST" });
  const limits = { keepaliveMs: config.streamKeepaliveMs, idleMs: config.streamIdleTimeoutMs, maxEventBytes: config.maxUpstreamEventBytes };
  const one = async (): Promise<number> => {
    const reader = oneEventARead(events);
    const first = new Uint8Array(events[0]!);
    const body =
      form === "bare"
        ? bareStream(reader, first)
        : pipeStream(reader, Buffer.from(first.buffer, first.byteOffset, first.byteLength), { api, upstreamModelId: BENCH_MODELS.all, tier: SAME_FORMAT_TIER, client, limits, keepChunks: true });
    return (await new Response(body).arrayBuffer()).byteLength;
  };
  return async () => (await Promise.all(Array.from({ length: atOnce }, one))).reduce((sum, bytes) => sum + bytes, 0);
}
