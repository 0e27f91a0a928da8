/**
 * The load generator of the open-streams row, run as a process of its own (its fetch pool sized by
 * BUN_CONFIG_MAX_HTTP_REQUESTS in its environment): opens `streams` streaming requests, in batches,
 * reads each to its end, and while all are open times `probes` new requests, one at a time.
 * Options come as one JSON argument; it reports JSON lines on stdout: `opened` once every stream
 * has its first byte, `done` at the end.
 */
import { percentiles } from "./percentiles.ts";

export interface HoldStreamsOptions {
  readonly url: string;
  readonly key: string;
  /** The streaming request's body (Chat Completions). */
  readonly body: Record<string, unknown>;
  readonly streams: number;
  /** Streams started together; the next batch waits for this one's first bytes. */
  readonly batch: number;
  /** New requests made while every stream is open, one at a time (0 = none)… */
  readonly probes: number;
  /** …one starting this often, so they sample the whole time the streams are open, not one moment. */
  readonly probeEveryMs: number;
  readonly probeBody: Record<string, unknown>;
}

export interface HoldStreamsReport {
  readonly streams: number;
  readonly opened: number;
  readonly completed: number;
  readonly errors: number;
  readonly firstError?: string | undefined;
  /** Seconds from the first stream started to the last one's first byte. */
  readonly openSec: number;
  readonly probes: number;
  readonly probeErrors: number;
  readonly probeTtfbP50Ms: number;
  readonly probeTtfbP99Ms: number;
}

export type HoldStreamsLine = { readonly event: "opened"; readonly opened: number } | ({ readonly event: "done" } & HoldStreamsReport);

function post(options: HoldStreamsOptions, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${options.url}/v1/chat/completions`, {
    method: "POST",
    // Every request reaches the upstream: the response cache would answer repeats at once.
    headers: { authorization: `Bearer ${options.key}`, "content-type": "application/json", "cache-control": "no-cache" },
    body: JSON.stringify(body),
  });
}

/** Reads a stream to its end: whether it ended with Chat's terminator, and its first byte as soon as it comes. */
async function readStream(response: Response, onFirstByte: () => void): Promise<boolean> {
  const reader = response.body!.getReader();
  const decoder = new TextDecoder();
  let tail = "";
  let first = true;
  for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
    if (first) {
      first = false;
      onFirstByte();
    }
    tail = (tail + decoder.decode(chunk.value, { stream: true })).slice(-64);
  }
  return tail.includes("data: [DONE]");
}

export async function holdStreams(options: HoldStreamsOptions, emit: (line: HoldStreamsLine) => void): Promise<HoldStreamsReport> {
  let opened = 0;
  let completed = 0;
  let errors = 0;
  let firstError: string | undefined;
  const fail = (why: string): void => {
    errors += 1;
    firstError ??= why;
  };
  const started = performance.now();
  // Each resolves at its stream's first byte, or at its end when it failed before one.
  const firstBytes: Promise<void>[] = [];
  const running: Promise<void>[] = [];
  for (let from = 0; from < options.streams; from += options.batch) {
    const batch: Promise<void>[] = [];
    for (let i = from; i < Math.min(options.streams, from + options.batch); i++) {
      let firstByte!: () => void;
      const gotFirst = new Promise<void>((resolve) => (firstByte = resolve));
      batch.push(gotFirst);
      firstBytes.push(gotFirst);
      const body = { ...options.body, messages: [{ role: "user", content: `stream ${i} ${String((options.body.messages as Array<{ content: string }>)[0]?.content ?? "")}` }] };
      running.push(
        post(options, body)
          .then(async (response) => {
            if (response.status !== 200) {
              fail(`status ${response.status}: ${(await response.text()).slice(0, 200)}`);
              return;
            }
            const whole = await readStream(response, () => {
              opened += 1;
              firstByte();
            });
            if (whole) completed += 1;
            else fail("stream ended without data: [DONE]");
          })
          .catch((error: unknown) => fail(error instanceof Error ? error.message : String(error)))
          .finally(() => firstByte()),
      );
    }
    await Promise.all(batch);
  }
  await Promise.all(firstBytes);
  const openSec = (performance.now() - started) / 1000;
  emit({ event: "opened", opened });

  const ttfb = new Float64Array(Math.max(1, options.probes));
  let probed = 0;
  let probeErrors = 0;
  for (let i = 0; i < options.probes; i++) {
    const at = performance.now();
    const next = Bun.sleep(options.probeEveryMs);
    try {
      const response = await post(options, { ...options.probeBody, messages: [{ role: "user", content: `probe ${i} [sim words=3]` }] });
      let first = -1;
      for await (const _chunk of response.body!) if (first < 0) first = performance.now() - at;
      if (response.status !== 200 || first < 0) probeErrors += 1;
      else ttfb[probed++] = first;
    } catch {
      probeErrors += 1;
    }
    await next;
  }
  await Promise.all(running);
  const [p50 = Number.NaN, p99 = Number.NaN] = probed > 0 ? percentiles(ttfb, probed, [50, 99]) : [];
  return {
    streams: options.streams,
    opened,
    completed,
    errors,
    firstError,
    openSec,
    probes: options.probes,
    probeErrors,
    probeTtfbP50Ms: p50,
    probeTtfbP99Ms: p99,
  };
}

if (import.meta.main) {
  const options = JSON.parse(process.argv[2] ?? "{}") as HoldStreamsOptions;
  const emit = (line: HoldStreamsLine): void => void process.stdout.write(`${JSON.stringify(line)}\n`);
  const report = await holdStreams(options, emit);
  emit({ event: "done", ...report });
}
