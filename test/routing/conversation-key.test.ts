import { describe, expect, test } from "bun:test";
import type { ContentPart } from "../../src/canonical/content-part.ts";
import type { CanonicalRequest } from "../../src/canonical/request.ts";
import { conversationKey, responseConversationKey } from "../../src/routing/conversation-key.ts";
import { hashKey } from "../../src/routing/hash-key.ts";
import { readSessionId } from "../../src/routing/read-session-id.ts";
import { assistant, request, toolCall, toolResult, user } from "./request-fixtures.ts";

const sys = (text: string) => [{ type: "text" as const, text }];
const base = request([user("fix the build")], { system: sys("You are helpful.") });

describe("conversation key", () => {
  test("later turns of one conversation share the key", () => {
    const later = request([user("fix the build"), assistant(toolCall("t1")), user(toolResult("t1", "ok")), assistant("done"), user("now add a test")], {
      system: sys("You are helpful."),
    });
    expect(conversationKey("acc", "normal", later, undefined)).toBe(conversationKey("acc", "normal", base, undefined));
  });

  test.each([
    ["another account", () => conversationKey("other", "normal", base, undefined)],
    ["another tier", () => conversationKey("acc", "smart", base, undefined)],
    ["another system prompt", () => conversationKey("acc", "normal", { ...base, system: sys("You are terse.") }, undefined)],
    ["another first message", () => conversationKey("acc", "normal", request([user("fix the tests")], { system: sys("You are helpful.") }), undefined)],
    ["a session id", () => conversationKey("acc", "normal", base, "session-1")],
  ])("%s gives another key", (_name, other) => {
    expect(other()).not.toBe(conversationKey("acc", "normal", base, undefined));
  });

  test("the per-request billing header in the system prompt does not split a conversation", () => {
    const a = { ...base, system: [{ type: "text" as const, text: "x-anthropic-billing-header: cc_version=1; cch=aaaa" }, ...sys("You are helpful.")] };
    const b = { ...base, system: [{ type: "text" as const, text: "x-anthropic-billing-header: cc_version=1; cch=bbbb" }, ...sys("You are helpful.")] };
    expect(conversationKey("acc", "normal", a, undefined)).toBe(conversationKey("acc", "normal", b, undefined));
  });

  test("previous_response_id continues the conversation recorded under that response", () => {
    const next = request([user("and then?")], { previousResponseId: "resp_1" });
    expect(conversationKey("acc", "normal", next, undefined)).toBe(responseConversationKey("acc", "normal", "resp_1"));
    expect(conversationKey("acc", "normal", next, undefined)).not.toBe(responseConversationKey("acc", "normal", "resp_2"));
  });

  test("keys are 32 hex characters, stable across calls", () => {
    expect(conversationKey("acc", "normal", base, undefined)).toMatch(/^[0-9a-f]{32}$/);
  });
});

/** The key as it was first defined (the texts joined whole, then bounded): keys are shared through Redis and Postgres, so they never change. */
function keyAsDefined(accountId: string, tier: "normal" | "smart", request: CanonicalRequest, sessionId: string | undefined): string {
  const system = request.system.map((part) => part.text).filter((text) => !text.startsWith("x-anthropic-billing-header:")).join("\n");
  const firstUser = request.messages.find((m) => m.role === "user" && m.content.some((part) => part.type === "text"));
  const first = (firstUser?.content ?? []).flatMap((part) => (part.type === "text" ? [part.text] : [])).join("\n");
  const keyText = (text: string) => `${text.length}:${text.length <= 8_192 ? text : `${text.slice(0, 4_096)}\n…\n${text.slice(text.length - 4_096)}`}`;
  return hashKey(["conv", accountId, tier, keyText(system), keyText(first), sessionId ?? ""]);
}

const text = (value: string) => ({ type: "text" as const, text: value });

describe("conversation key of long texts in parts", () => {
  const long = (seed: string, n: number) => Array.from({ length: n }, (_, i) => `${seed}${i % 10}`).join("");
  const cases: Array<[string, ReturnType<typeof text>[], ReturnType<typeof text>[], string, string]> = [
    [
      "two long system parts, the cut inside the second",
      [text("x-anthropic-billing-header: cc_version=1; cch=aaaa"), text(`You are Claude Code. ${long("a—", 1500)}`), text(long("b", 6000))],
      [text(long("reminder ", 700)), text("Fix the failing test, please — ✓ done.")],
      "0be0c271b142128ac0d64def700cd72f",
      "c3e9bdd8253f01140d92d3bf4fd331a1",
    ],
    ["the separators at the cuts", [text("c".repeat(4095)), text(""), text("d".repeat(2999)), text("e".repeat(4095))], [text("short")], "670fa3e7a88593470546813381ccb109", "48447ab61549b77e223dd6d663148b3a"],
    ["one long part", [text(long("é", 5000))], [text(long("f", 4000)), text(long("g", 1))], "3084b9c618cbc3aeb07a809abf41d10b", "56351744b0018fc5ce4590db99f475ca"],
  ];

  test.each(cases)("%s: the key it always had", (_name, system, first, normal, smart) => {
    const req = request([{ role: "user", content: first }], { system });
    expect(conversationKey("acct_golden", "normal", req, undefined)).toBe(normal);
    expect(conversationKey("acct_golden", "smart", req, "sess-1")).toBe(smart);
  });

  test("texts of every length around the cuts, in parts, key as their joined text does", () => {
    let seed = 7;
    const next = (n: number) => {
      seed = (seed * 1_103_515_245 + 12_345) % 2_147_483_648;
      return seed % n;
    };
    const lengths = [0, 1, 4094, 4095, 4096, 4097, 8190, 8191, 8192, 8193, 9000];
    for (let round = 0; round < 300; round++) {
      const parts = (): ReturnType<typeof text>[] =>
        Array.from({ length: 1 + next(4) }, (_, i) => text((i % 2 === 0 ? "ab" : "é\n✓").repeat(8_200).slice(0, next(3) === 0 ? lengths[next(lengths.length)]! : next(5_000))));
      const req = request([user(toolResult("t0", "only a result")), { role: "user", content: parts() }], { system: parts() });
      expect(conversationKey("acc", "normal", req, undefined)).toBe(keyAsDefined("acc", "normal", req, undefined));
    }
  });

  test("a first message the parse memo shares (frozen) keys alike, and every other input still counts", () => {
    const first: readonly ContentPart[] = Object.freeze([Object.freeze(text(long("first ", 2000))), Object.freeze(text("and go"))]);
    const system = [text(long("sys ", 3000)), text("more")];
    const req = request([{ role: "user", content: first }], { system });
    const variants: Array<[string, "normal" | "smart", CanonicalRequest, string | undefined]> = [
      ["acc", "normal", req, undefined],
      ["acc", "normal", req, undefined],
      ["acc", "normal", req, "session-2"],
      ["acc", "normal", req, undefined],
      ["acc", "smart", req, undefined],
      ["acc", "normal", { ...req, system: [text(long("sys ", 3000)), text("mor")] }, undefined],
      ["acc", "normal", { ...req, system: [text(long("sys ", 3000))] }, undefined],
      ["acc", "normal", { ...req, system: [...system, text("x-anthropic-billing-header: cch=b")] }, undefined],
      ["other", "normal", req, undefined],
      ["acc", "normal", { ...req, system: [] }, undefined],
      ["acc", "normal", req, undefined],
    ];
    const keys = variants.map(([accountId, tier, r, session]) => conversationKey(accountId, tier, r, session));
    expect(keys).toEqual(variants.map(([accountId, tier, r, session]) => keyAsDefined(accountId, tier, r, session)));
    expect(new Set(keys).size).toBe(7);
  });
});

describe("session id", () => {
  test.each([
    [{ "x-session-id": "s1" }, undefined, "s1"],
    [{ "x-claude-code-session-id": "cc" }, "user-x", "cc"],
    [{ session_id: "pi" }, undefined, "pi"],
    [{}, '{"session_id":"abc"}', '{"session_id":"abc"}'],
    [{}, undefined, undefined],
  ])("headers %p and user %p → %p", (headers, userId, expected) => {
    expect(readSessionId(new Headers(headers), request([], userId ? { user: userId } : {}))).toBe(expected);
  });
});
