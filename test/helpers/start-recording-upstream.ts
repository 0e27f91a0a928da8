import type { Server } from "bun";

/** An upstream that keeps the text of every request it receives and answers each with one Messages reply, "ok". */
export interface RecordingUpstream {
  readonly url: string;
  /** The request bodies received, in order, as text. */
  readonly received: readonly string[];
  stop(): void;
}

export function startRecordingUpstream(): RecordingUpstream {
  const received: string[] = [];
  const server: Server<undefined> = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    async fetch(request) {
      received.push(await request.text());
      return Response.json({
        id: "msg_1",
        type: "message",
        role: "assistant",
        model: "knob-messages",
        content: [{ type: "text", text: "ok" }],
        stop_reason: "end_turn",
        stop_sequence: null,
        usage: { input_tokens: 5, output_tokens: 1 },
      });
    },
  });
  return { url: `http://127.0.0.1:${server.port}`, received, stop: () => server.stop(true) };
}
