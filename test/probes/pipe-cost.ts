/**
 * CPU of the same-format pipe alone: a 43-event Chat stream (40 one-word deltas, the finish, the
 * hidden usage chunk, `[DONE]`) through `pipeStream`, read to its end, 3,000 times.
 *
 *   bun test/probes/pipe-cost.ts [root of a checkout]   (default: this one)
 *
 * Give another checkout's root to compare builds on the same machine.
 */
import { join } from "node:path";

const root = process.argv[2] ?? join(import.meta.dir, "..", "..");
const { pipeStream } = (await import(join(root, "src/upstream/passthrough/pipe-stream.ts"))) as typeof import("../../src/upstream/passthrough/pipe-stream.ts");
const { chatApi } = (await import(join(root, "src/wire/chat/api.ts"))) as typeof import("../../src/wire/chat/api.ts");
const RUNS = 3_000;
const chunk = (content: string, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: "chatcmpl-abc123", object: "chat.completion.chunk", created: 1700000000, model: "gpt-4o-mini", system_fingerprint: "fp_1", choices: [{ index: 0, delta: { content }, logprobs: null, finish_reason: finish }] })}\n\n`;
let text = chunk("");
for (let i = 0; i < 40; i++) text += chunk(` word${i}`);
text += chunk("", "stop") + `data: ${JSON.stringify({ id: "x", object: "chat.completion.chunk", created: 1, model: "gpt-4o-mini", choices: [], usage: { prompt_tokens: 10, completion_tokens: 40, total_tokens: 50 } })}\n\ndata: [DONE]\n\n`;
const bytes = Buffer.from(text);
const firstEnd = bytes.indexOf("\n\n") + 2;
const client = new Request("http://gateway.test/");
const limits = { keepaliveMs: 15_000, idleMs: 300_000, maxEventBytes: 64 * 1024 * 1024 };

/** One stream: the first event read already, the rest in one piece, then the end. */
async function once(): Promise<number> {
  const queue = [Buffer.from(bytes.subarray(firstEnd))];
  const reader = { read: async () => (queue.length > 0 ? { done: false as const, value: queue.shift()! } : { done: true as const }), cancel: async () => {} };
  let ended!: () => void;
  const reported = new Promise<void>((resolve) => (ended = resolve));
  const options = { api: chatApi, upstreamModelId: "gpt-4o-mini", tier: "fast", client, limits, hideUsageChunk: true, keepChunks: false, onEnd: () => ended() };
  const out = await new Response(pipeStream(reader, Buffer.from(bytes.subarray(0, firstEnd)), options)).arrayBuffer();
  await reported;
  return out.byteLength;
}

for (let i = 0; i < 300; i++) await once();
const before = process.cpuUsage();
for (let i = 0; i < RUNS; i++) await once();
const used = process.cpuUsage(before);
console.log(`${root}: ${((used.user + used.system) / RUNS).toFixed(1)} µs of CPU per 43-event Chat stream through the pipe`);
