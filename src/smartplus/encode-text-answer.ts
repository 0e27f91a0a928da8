import type { CanonicalResponse } from "../canonical/response.ts";
import type { StreamEvent } from "../canonical/stream-event.ts";
import { ZERO_USAGE, type Usage } from "../canonical/usage.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import type { EncodeContext } from "../wire/client-format.ts";
import { wireApi } from "../wire/wire-apis.ts";

const END_TURN = { unified: "end_turn", raw: null } as const;

/** Words as output tokens: the turn calls no model, so this is only an indication for clients that show it. */
const usageOf = (text: string): Usage => ({ ...ZERO_USAGE, outputTokens: text.split(/\s+/).filter((w) => w !== "").length });

/** The whole answer as the client format's JSON body. */
export function encodeTextResponse(format: WireFormat, id: string, text: string, ctx: EncodeContext): string {
  const response: CanonicalResponse = { id, model: ctx.model, content: [{ type: "text", text }], stopReason: END_TURN, usage: usageOf(text) };
  return JSON.stringify(wireApi(format).client.encodeResponse(response, ctx));
}

/**
 * The answer as the client format's event stream: one text block whose deltas are the pieces as
 * they come (the phases of the job), then the format's terminator. `beforeLastBytes` is waited for
 * just before the terminator (or the error event that ends the stream) is queued, so what the turn
 * holds is free before the client has its last byte; `onEnd` runs once, when the last byte is out
 * or the client has gone.
 */
export function encodeTextStream(
  format: WireFormat,
  id: string,
  pieces: AsyncIterable<string>,
  ctx: EncodeContext,
  beforeLastBytes: () => void | Promise<void>,
  onEnd: () => void,
): ReadableStream<Uint8Array> {
  const encoder = wireApi(format).client.stream;
  const bytes = new TextEncoder();
  let state = encoder.initial(ctx);
  const emit = (controller: ReadableStreamDefaultController<Uint8Array>, event: StreamEvent): void => {
    const [next, chunk] = encoder.step(state, event);
    state = next;
    if (chunk !== "") controller.enqueue(bytes.encode(chunk));
  };
  const iterator = pieces[Symbol.asyncIterator]();
  let all = "";
  let ended = false;
  const end = (): void => {
    if (ended) return;
    ended = true;
    onEnd();
  };
  return new ReadableStream<Uint8Array>({
    start(controller) {
      emit(controller, { type: "start", id, model: ctx.model, usage: ZERO_USAGE });
      emit(controller, { type: "block_start", index: 0, block: { type: "text" } });
    },
    async pull(controller) {
      let last: StreamEvent[];
      try {
        const next = await iterator.next();
        if (!next.done) {
          all += next.value;
          emit(controller, { type: "text_delta", index: 0, text: next.value });
          return;
        }
        last = [
          { type: "block_stop", index: 0 },
          { type: "finish", stopReason: END_TURN, usage: usageOf(all) },
        ];
      } catch (error) {
        // The cause (a database error, say) stays in the server's log, never in the answer.
        console.error(JSON.stringify({ level: "error", msg: "smart+ turn failed mid-stream", error: error instanceof Error ? error.message : String(error) }));
        last = [{ type: "error", error: { status: 500, type: "api_error", message: "the Smart+ job could not be read; ask again" } }];
      }
      await Promise.resolve(beforeLastBytes()).catch(() => {});
      for (const event of last) emit(controller, event);
      controller.close();
      end();
    },
    async cancel() {
      await iterator.return?.();
      end();
    },
  });
}
