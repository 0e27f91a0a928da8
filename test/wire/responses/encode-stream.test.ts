import { describe, expect, test } from "bun:test";
import type { StreamEvent } from "../../../src/canonical/stream-event.ts";
import { responsesStreamEncoder } from "../../../src/wire/responses/encode-stream.ts";
import { decodeAll, splitSse } from "./sse-helpers.ts";

const ctx = { model: "normal", created: 1_700_000_000, includeUsage: false };

function encode(events: readonly StreamEvent[]): string {
  let state = responsesStreamEncoder.initial(ctx);
  let out = "";
  for (const event of events) {
    const [next, text] = responsesStreamEncoder.step(state, event);
    state = next;
    out += text;
  }
  return out;
}

type Frame = Record<string, unknown>;
const frames = (text: string): Frame[] => splitSse(text).map((event) => JSON.parse(event.data) as Frame);

/** The shape of an event that does not depend on ids, model or timing. */
function shape(frame: Frame): unknown {
  const { sequence_number: _seq, item_id: _itemId, response, item, ...rest } = frame;
  const out: Record<string, unknown> = { ...rest };
  if (typeof rest.delta === "string") out.delta = "…";
  if (item !== undefined) out.item = (item as Frame).type;
  if (response !== undefined) out.status = (response as Frame).status;
  return out;
}

describe("Responses stream encoder reproduces the upstream's own event sequence", () => {
  for (const name of ["text", "parallel-tools", "thinking", "usage", "incomplete"]) {
    test(`${name}.sse: same events, indexes and final output as the recorded stream`, async () => {
      const recorded = await Bun.file(`${import.meta.dir}/../../fixtures/responses/${name}.sse`).text();
      const encoded = encode(decodeAll(splitSse(recorded)));
      const want = frames(recorded);
      const got = frames(encoded);
      expect(got.map(shape)).toEqual(want.map(shape));
      expect(got.map((frame) => frame.sequence_number)).toEqual(got.map((_, i) => i));
      const wantFinal = want[want.length - 1]!.response as Frame;
      const gotFinal = got[got.length - 1]!.response as Frame;
      expect(gotFinal.usage).toMatchObject(wantFinal.usage as Frame);
      const strip = (items: unknown) => (items as Frame[]).map(({ id: _id, encrypted_content: _enc, ...item }) => item);
      expect(strip(gotFinal.output)).toEqual(strip(wantFinal.output).map((item) => (item.type === "message" ? { ...item, status: "completed" } : item)));
    });
  }

  test("every event's keys come in the recorded stream's order (type and sequence_number first)", async () => {
    for (const name of ["text", "parallel-tools", "thinking", "usage", "incomplete"]) {
      const recorded = await Bun.file(`${import.meta.dir}/../../fixtures/responses/${name}.sse`).text();
      const want = frames(recorded);
      const got = frames(encode(decodeAll(splitSse(recorded))));
      const keys = (frame: Frame) => Object.keys(frame).filter((key) => key !== "obfuscation");
      expect(got.map(keys)).toEqual(want.map(keys));
    }
  });

  test("text deltas carry any text exactly", () => {
    const text = 'quote " backslash \\ newline \n tab \t emoji \u{1F600} nul \u0000 separator \u2028';
    const got = frames(
      encode([
        { type: "start", id: "resp_1", model: "m" },
        { type: "block_start", index: 0, block: { type: "text" } },
        { type: "text_delta", index: 0, text },
      ]),
    );
    expect(got.at(-1)).toEqual({ type: "response.output_text.delta", sequence_number: 4, item_id: expect.any(String), output_index: 0, content_index: 0, delta: text, logprobs: [] });
  });

  test("item ids are reused across added, delta and done events", () => {
    const text = encode([
      { type: "start", id: "msg_1", model: "m" },
      { type: "block_start", index: 0, block: { type: "tool_call", id: "call_1", name: "f" } },
      { type: "tool_args_delta", index: 0, fragment: "{}" },
      { type: "block_stop", index: 0 },
      { type: "finish", stopReason: { unified: "tool_use", raw: null }, usage: { inputTokens: 1, outputTokens: 1, cacheReadTokens: 0, cacheWriteTokens: 0, reasoningTokens: 0 } },
    ]);
    const all = frames(text);
    const ids = new Set(all.filter((frame) => frame.item_id !== undefined).map((frame) => frame.item_id));
    const added = all.find((frame) => frame.type === "response.output_item.added")!;
    expect([...ids]).toEqual([(added.item as Frame).id]);
  });
});
