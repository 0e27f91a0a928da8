import { describe, expect, test } from "bun:test";
import type { ContentPart } from "../../src/canonical/content-part.ts";
import type { JsonObject } from "../../src/canonical/json-object.ts";
import { buildConversationBody } from "../../src/bench/build-conversation-body.ts";
import { createParseMemo } from "../../src/pipeline/create-parse-memo.ts";
import { parseJsonBody } from "../../src/pipeline/read-json-body.ts";
import { extractTaskSignals } from "../../src/routing/extract-task-signals.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";
import { assistant, image, request, toolCall, toolResult, user } from "./request-fixtures.ts";

const SCAN_CHARS = 8192;

/** A text part whose text counts its reads. */
function countedText(text: string): { part: ContentPart; reads: () => number } {
  let reads = 0;
  const part = {
    type: "text",
    get text() {
      reads++;
      return text;
    },
  } as ContentPart;
  return { part, reads: () => reads };
}

describe("extractTaskSignals", () => {
  test("a conversation sent again (its messages shared from the parse memo) gives the signals a fresh decode gives", () => {
    const body = buildConversationBody({ targetBytes: 200 * 1024, images: true, model: "normal", stream: false, maxTokens: 256 });
    const text = JSON.stringify(body);
    const memo = createParseMemo({ maxChars: 8 << 20 });
    const decode = (value: unknown) => wireApi("messages").client.decodeRequest(value as JsonObject).value;
    const fresh = extractTaskSignals(decode(JSON.parse(text)), SCAN_CHARS);
    // The third sight: the memo keeps each message from its second on, frozen, and the decode shares their content.
    let shared = decode(parseJsonBody(Buffer.from(text), memo.scope("acct")).value);
    for (let i = 0; i < 3; i++) shared = decode(parseJsonBody(Buffer.from(text), memo.scope("acct")).value);
    expect(shared.messages.filter((m) => Object.isFrozen(m.content)).length).toBeGreaterThan(shared.messages.length / 2);
    expect(extractTaskSignals(shared, SCAN_CHARS)).toEqual(fresh);
    // Read twice, the same answer.
    expect(extractTaskSignals(shared, SCAN_CHARS)).toEqual(fresh);
    expect(fresh.hasImages).toBe(true);
    expect(fresh.depth).toBeGreaterThan(1);
  });

  test("a shared (frozen) message is read once; one that is not is read every time", () => {
    const frozen = countedText("the first request, long since answered");
    const open = countedText("the newest request");
    const history = [
      { role: "user" as const, content: Object.freeze([frozen.part]) },
      assistant(toolCall("t1")),
      user(toolResult("t1", "done")),
      { role: "user" as const, content: [open.part] },
    ];
    const first = extractTaskSignals(request(history), SCAN_CHARS);
    const readsOfFrozen = frozen.reads();
    const readsOfOpen = open.reads();
    expect(readsOfFrozen).toBeGreaterThan(0);
    const second = extractTaskSignals(request(history), SCAN_CHARS);
    expect(second).toEqual(first);
    expect(frozen.reads()).toBe(readsOfFrozen);
    expect(open.reads()).toBe(2 * readsOfOpen);
    expect(first).toMatchObject({ text: "the newest request", depth: 2, lastIsToolResult: false });
  });

  test("a shared user message of tool results alone (no text) is read once too", () => {
    let reads = 0;
    const result = toolResult("t1", "exit 0");
    const counted = Object.defineProperty({ ...result }, "type", {
      get() {
        reads++;
        return "tool_result";
      },
      enumerable: true,
    }) as ContentPart;
    const history = [user("run the tests"), assistant(toolCall("t1")), { role: "user" as const, content: Object.freeze([counted]) }, assistant("done"), user("thanks")];
    const first = extractTaskSignals(request(history), SCAN_CHARS);
    const readsAtFirst = reads;
    expect(readsAtFirst).toBeGreaterThan(0);
    expect(extractTaskSignals(request(history), SCAN_CHARS)).toEqual(first);
    expect(reads).toBe(readsAtFirst);
    // The tool-result turn is no user turn of its own.
    expect(first.depth).toBe(2);
  });

  test("content that is not shared may change between requests, and its signals with it", () => {
    const content: ContentPart[] = [{ type: "text", text: "short" }];
    const history = [{ role: "user" as const, content }];
    const before = extractTaskSignals(request(history), SCAN_CHARS);
    content.push(image);
    const after = extractTaskSignals(request(history), SCAN_CHARS);
    expect(before.hasImages).toBe(false);
    expect(after.hasImages).toBe(true);
    expect(after.promptTokens).toBeGreaterThan(before.promptTokens);
  });
});
