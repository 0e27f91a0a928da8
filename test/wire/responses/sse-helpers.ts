import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { parseSseEvent } from "../../../src/upstream/sse/read-first-event.ts";
import type { SseEvent } from "../../../src/wire/sse-event.ts";
import { responsesStreamDecoder } from "../../../src/wire/responses/decode-stream.ts";

/** The SSE events of a whole stream body, in order. */
export function splitSse(text: string): SseEvent[] {
  return text
    .split(/\r?\n\r?\n/)
    .filter((block) => block.trim() !== "")
    .map(parseSseEvent);
}

/** Runs the Responses stream decoder over whole events, then `end()`. */
export function decodeAll(events: readonly SseEvent[]): StreamEvent[] {
  let state = responsesStreamDecoder.initial();
  const out: StreamEvent[] = [];
  for (const event of events) {
    const [next, emitted] = responsesStreamDecoder.step(state, event);
    state = next;
    out.push(...emitted);
  }
  out.push(...responsesStreamDecoder.end(state));
  return out;
}

/** What a client would assemble from canonical events: per block its kind and joined text/args. */
export function assemble(events: readonly StreamEvent[]): { blocks: Record<string, string>[]; last: StreamEvent | undefined } {
  const blocks: Record<string, string>[] = [];
  for (const event of events) {
    if (event.type === "block_start") {
      const block = event.block;
      blocks[event.index] = { kind: block.type, ...(block.type === "tool_call" ? { id: block.id, name: block.name } : {}), body: "", signature: "" };
    } else if (event.type === "text_delta" || event.type === "thinking_delta") blocks[event.index]!.body += event.text;
    else if (event.type === "tool_args_delta") blocks[event.index]!.body += event.fragment;
    else if (event.type === "signature_delta") blocks[event.index]!.signature += event.signature;
  }
  return { blocks, last: events[events.length - 1] };
}

/** Checks the canonical stream's shape rules: indexes from 0 in start order, every block stops before the end. */
export function structureErrors(events: readonly StreamEvent[]): string[] {
  const errors: string[] = [];
  const open = new Set<number>();
  let next = 0;
  events.forEach((event, i) => {
    if (event.type === "block_start") {
      if (event.index !== next) errors.push(`event ${i}: block ${event.index} started, expected ${next}`);
      next++;
      open.add(event.index);
    } else if (event.type === "block_stop") {
      if (!open.delete(event.index)) errors.push(`event ${i}: block ${event.index} stopped but not open`);
    } else if ("index" in event && !open.has(event.index)) errors.push(`event ${i}: ${event.type} for closed block ${event.index}`);
    if ((event.type === "finish" || event.type === "error") && i !== events.length - 1) errors.push(`event ${i}: ${event.type} is not last`);
  });
  const last = events[events.length - 1];
  if (last?.type === "finish" && open.size > 0) errors.push(`blocks still open at finish: ${[...open].join(",")}`);
  return errors;
}
