import type { WireFormat } from "../../src/canonical/wire-format.ts";
import { loadRecordings, type Recording } from "./recordings.ts";

const API_OF_PATH: Readonly<Record<string, WireFormat>> = {
  "/v1/messages": "messages",
  "/v1/chat/completions": "chat",
  "/v1/responses": "responses",
};

/** Where a request names the recording it wants: anywhere in its body (the prompt survives translation). */
const MARKER = /REPLAY:([A-Za-z0-9_./-]+)/;

/**
 * The HTTP status a recorded error body came with (the recordings keep bodies, not statuses): the
 * status each API documents for the error's type or code.
 */
const ERROR_STATUS: Readonly<Record<string, number>> = {
  invalid_request_error: 400,
  authentication_error: 401,
  permission_error: 403,
  not_found_error: 404,
  insufficient_quota: 429,
  rate_limit_error: 429,
  rate_limit_exceeded: 429,
  api_error: 500,
  server_error: 500,
  overloaded_error: 529,
};

export function recordedErrorStatus(body: unknown): number | null {
  if (body === null || typeof body !== "object" || !("error" in body)) return null;
  const error = (body as { error: unknown }).error;
  if (error === null || typeof error !== "object") return null;
  const { type, code } = error as { type?: unknown; code?: unknown };
  return ERROR_STATUS[String(code)] ?? ERROR_STATUS[String(type)] ?? 500;
}

/** The SSE text of a recorded stream, framed as its API sends it. */
export function frameRecording(recording: Recording): string {
  const lines = recording.lines ?? [];
  if (recording.api === "chat") return `${lines.map((line) => `data: ${line}\n\n`).join("")}data: [DONE]\n\n`;
  // A line cut short still names its type near the start.
  const typeOf = (line: string, i: number): string => String(recording.events![i]?.type ?? /"type":"([^"]+)"/.exec(line)?.[1]);
  return lines.map((line, i) => `event: ${typeOf(line, i)}\ndata: ${line}\n\n`).join("");
}

const fail = (status: number, message: string): Response => Response.json({ error: { type: "invalid_request_error", message } }, { status });

function answer(recording: Recording, api: WireFormat, stream: boolean): Response {
  if (recording.api !== api) return fail(400, `${recording.file} was recorded from the ${recording.api} API, not ${api}`);
  if (recording.stream !== stream) return fail(400, `${recording.file} is ${recording.stream ? "a stream" : "a body"}; the request asked otherwise`);
  if (!recording.stream) return Response.json(recording.body, { status: recordedErrorStatus(recording.body) ?? 200 });
  // One chunk per event, as a provider flushes them.
  const chunks = frameRecording(recording).split(/(?<=\n\n)/);
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    pull(controller) {
      const next = chunks.shift();
      if (next === undefined) controller.close();
      else controller.enqueue(encoder.encode(next));
    },
  });
  return new Response(body, { headers: { "content-type": "text/event-stream; charset=utf-8", "cache-control": "no-cache" } });
}

export interface ReplayUpstream {
  readonly url: string;
  /** Every request received: its path and body. */
  readonly received: { readonly path: string; readonly body: Record<string, unknown> }[];
  stop(): Promise<void>;
}

/**
 * A real HTTP upstream that answers any request with the recording its body names
 * (`REPLAY:<folder>/<file>`), as the API that produced it: a body with its status, or the stream
 * with its SSE framing rebuilt (`event:` = the data's `type` for Messages and Responses, `[DONE]`
 * after Chat streams). `extra` recordings (a test's own) are served beside the corpus.
 */
export async function startReplayUpstream(extra: readonly Recording[] = []): Promise<ReplayUpstream> {
  const recordings = new Map([...loadRecordings(), ...extra].map((r) => [r.file, r]));
  const received: { path: string; body: Record<string, unknown> }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    idleTimeout: 60,
    async fetch(request) {
      const api = API_OF_PATH[new URL(request.url).pathname];
      if (request.method !== "POST" || api === undefined) return fail(404, `no such endpoint: ${request.method} ${new URL(request.url).pathname}`);
      const text = await request.text();
      received.push({ path: new URL(request.url).pathname, body: JSON.parse(text) as Record<string, unknown> });
      const name = MARKER.exec(text)?.[1];
      const recording = name === undefined ? undefined : recordings.get(name);
      if (recording === undefined) return fail(400, `no recording named in the request (${name ?? "none"})`);
      const stream = (JSON.parse(text) as { stream?: unknown }).stream === true;
      return answer(recording, api, stream);
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) };
}
