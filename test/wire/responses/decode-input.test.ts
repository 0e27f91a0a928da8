import { describe, expect, test } from "bun:test";
import { freezeLevels } from "../../../src/canonical/freeze-levels.ts";
import { decodeInput } from "../../../src/wire/responses/decode-input.ts";
import { seededRandom } from "../../helpers/seeded-random.ts";

/** Frozen as the parse memo freezes what it shares: the item, its content list, a part. */
const shared = <T extends object>(item: T): T => {
  freezeLevels(item, 3);
  return item;
};

/** `input` decoded as a request that shares nothing (every item its own copy): what keeping must never change. */
const decodeFresh = (input: readonly unknown[]) => {
  const warnings: string[] = [];
  return { ...decodeInput(structuredClone(input), [], warnings), warnings };
};

const decodeShared = (input: readonly unknown[]) => {
  const warnings: string[] = [];
  return { ...decodeInput(input, [], warnings), warnings };
};

const said = (text: string) => shared({ type: "message", role: "assistant", content: [{ type: "output_text", text, annotations: [] }] });
const asked = (text: string) => shared({ type: "message", role: "user", content: [{ type: "input_text", text }] });
const call = (id: string) => shared({ type: "function_call", call_id: id, name: "Read", arguments: `{"file":"${id}.ts"}` });
const output = (id: string) => shared({ type: "function_call_output", call_id: id, output: `contents of ${id}` });
const reasoning = (id: string) => shared({ type: "reasoning", id, summary: [{ type: "summary_text", text: `thinking ${id}` }], encrypted_content: `enc-${id}` });

describe("decodeInput: a conversation sent again", () => {
  test("each turn is the message its first sending gave, the same object, frozen", () => {
    const input = [asked("Fix the test."), reasoning("rs_1"), said("Let me look."), call("c1"), output("c1"), said("Let me look."), call("c2"), output("c2"), said("Done.")];
    const first = decodeShared(input);
    const again = decodeShared(input);
    expect(again.messages).toEqual(decodeFresh(input).messages);
    expect(again.messages.map((m) => m.role)).toEqual(["user", "assistant", "user", "assistant", "user", "assistant"]);
    expect(again.messages.every((message, i) => message === first.messages[i] && Object.isFrozen(message) && Object.isFrozen(message.content))).toBe(true);
  });

  test("the same words before different calls begin two turns, each read as sent", () => {
    const words = said("Let me look.");
    const input = [asked("Go."), words, call("c1"), output("c1"), words, call("c2"), output("c2"), words, output("c3")];
    decodeShared(input);
    const again = decodeShared(input);
    expect(again.messages).toEqual(decodeFresh(input).messages);
    expect(again.messages[1]!.content.map((part) => part.type)).toEqual(["text", "tool_call"]);
    expect(again.messages[3]!.content[1]).toMatchObject({ type: "tool_call", id: "c2" });
  });

  test("a turn that ended the input grows on the next turn: it is read again, merged, and kept as it grew", () => {
    const turn = [asked("Go."), said("Let me look."), call("c1")];
    decodeShared(turn);
    const grown = [...turn, call("c2"), output("c1"), output("c2")];
    const again = decodeShared(grown);
    expect(again.messages).toEqual(decodeFresh(grown).messages);
    expect(again.messages[1]!.content.map((part) => (part.type === "tool_call" ? part.id : part.type))).toEqual(["text", "c1", "c2"]);
    // The grown turn replaces the shorter one: sent once more, it is taken whole.
    expect(decodeShared(grown).messages[1]).toBe(again.messages[1]!);
  });

  test("an item dropped inside a turn warns on every sending, and the turn still merges", () => {
    const input = [asked("Go."), said("Looking."), shared({ type: "web_search_call", id: "ws_1", status: "completed" }), call("c1"), output("c1")];
    const first = decodeShared(input);
    const again = decodeShared(input);
    expect(first.warnings).toHaveLength(1);
    expect(again.warnings).toEqual(first.warnings);
    expect(again.messages).toEqual(decodeFresh(input).messages);
    expect(again.messages).toHaveLength(3);
  });

  test("turns on either side of an empty one merge, as when first sent", () => {
    const input = [asked("Go."), said("One."), shared({ type: "message", role: "user", content: [] }), said("Two."), output("c0")];
    decodeShared(input);
    const again = decodeShared(input);
    expect(again.messages).toEqual(decodeFresh(input).messages);
    expect(again.messages[1]!.content).toEqual([
      { type: "text", text: "One." },
      { type: "text", text: "Two." },
    ]);
  });

  test("random conversations of shared items decode as their unshared copies do, every time they are sent", () => {
    const random = seededRandom(21);
    const pool = [
      asked("Go."),
      asked("Continue."),
      said("Let me look."),
      said("Done."),
      reasoning("rs_1"),
      shared({ role: "developer", content: "Be brief." }),
      shared({ type: "item_reference", id: "msg_1" }),
      shared({ type: "message", role: "user", content: [] }),
      ...["c1", "c2", "c3"].flatMap((id) => [call(id), output(id)]),
    ];
    for (let round = 0; round < 300; round++) {
      const input = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pool[Math.floor(random() * pool.length)]!);
      const fresh = decodeFresh(input);
      for (let sent = 0; sent < 3; sent++) {
        const decoded = decodeShared(input);
        expect(decoded.messages).toEqual(fresh.messages);
        expect(decoded.system).toEqual(fresh.system);
        expect(decoded.warnings).toEqual(fresh.warnings);
      }
    }
  });
});
