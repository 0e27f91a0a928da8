import { describe, expect, test } from "bun:test";
import { freezeLevels } from "../../../src/canonical/freeze-levels.ts";
import { decodeMessages } from "../../../src/wire/chat/decode-messages.ts";
import { seededRandom } from "../../helpers/seeded-random.ts";

/** Frozen as the parse memo freezes what it shares: the message, its content list, a part. */
const shared = <T extends object>(message: T): T => {
  freezeLevels(message, 3);
  return message;
};

const decode = (messages: readonly unknown[]) => {
  const warnings: string[] = [];
  return { ...decodeMessages(messages, warnings), warnings };
};

/** As a request that shares nothing decodes it (every message its own copy): what keeping must never change. */
const decodeFresh = (messages: readonly unknown[]) => decode(structuredClone(messages));

const asked = (text: string) => shared({ role: "user", content: [{ type: "text", text }] });
const calls = (...ids: string[]) =>
  shared({ role: "assistant", content: null, tool_calls: ids.map((id) => ({ id, type: "function", function: { name: "read", arguments: `{"file":"${id}"}` } })) });
const result = (id: string) => shared({ role: "tool", tool_call_id: id, content: `contents of ${id}` });

describe("decodeMessages: a conversation sent again", () => {
  test("parallel calls' results stay one user message, the same object, frozen", () => {
    const messages = [asked("Go."), calls("c1", "c2"), result("c1"), result("c2"), shared({ role: "assistant", content: "Both read." })];
    const first = decode(messages);
    const again = decode(messages);
    expect(again.messages).toEqual(decodeFresh(messages).messages);
    expect(again.messages[2]!.content.map((part) => part.type)).toEqual(["tool_result", "tool_result"]);
    expect(again.messages.every((message, i) => message === first.messages[i] && Object.isFrozen(message) && Object.isFrozen(message.content))).toBe(true);
  });

  test("results that ended the conversation, joined by one more on the next turn, are read again as one message", () => {
    const turn = [asked("Go."), calls("c1", "c2"), result("c1")];
    decode(turn);
    const grown = [...turn, result("c2")];
    const again = decode(grown);
    expect(again.messages).toEqual(decodeFresh(grown).messages);
    expect(again.messages).toHaveLength(3);
    expect(decode(grown).messages[2]).toBe(again.messages[2]!);
  });

  test("random conversations of shared messages decode as their unshared copies do, every time they are sent", () => {
    const random = seededRandom(7);
    const pool = [
      asked("Go."),
      asked("Continue."),
      shared({ role: "system", content: "Be brief." }),
      shared({ role: "developer", content: [{ type: "text", text: "Use tools." }] }),
      shared({ role: "assistant", content: "Done." }),
      shared({ role: "user", content: [{ type: "input_audio", input_audio: { data: "AAAA", format: "wav" } }] }),
      calls("c1"),
      calls("c2", "c3"),
      result("c1"),
      result("c2"),
      result("c3"),
      shared({ role: "function", name: "legacy", content: "legacy result" }),
    ];
    for (let round = 0; round < 300; round++) {
      const messages = Array.from({ length: 1 + Math.floor(random() * 12) }, () => pool[Math.floor(random() * pool.length)]!);
      const fresh = decodeFresh(messages);
      for (let sent = 0; sent < 3; sent++) {
        const decoded = decode(messages);
        expect(decoded.messages).toEqual(fresh.messages);
        expect(decoded.system).toEqual(fresh.system);
        expect(decoded.warnings).toEqual(fresh.warnings);
      }
    }
  });
});
