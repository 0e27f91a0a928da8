import { describe, expect, test } from "bun:test";
import { buildConversationBody } from "../../src/bench/build-conversation-body.ts";

type Block = { type: string; id?: string; tool_use_id?: string; content?: Block[]; source?: { type: string; media_type: string; data: string } };
type Message = { role: string; content: Block[] };

const build = (targetBytes: number, images: boolean) => buildConversationBody({ targetBytes, images, model: "normal", stream: false, maxTokens: 256 });

describe("buildConversationBody", () => {
  test("reaches the size asked, and stops within a turn of it", () => {
    for (const target of [20 * 1024, 100 * 1024]) {
      const size = Buffer.byteLength(JSON.stringify(build(target, false)));
      expect(size).toBeGreaterThanOrEqual(target);
      expect(size).toBeLessThan(target + 16 * 1024);
    }
  });

  test("is not all ASCII: the model's prose and the test runner's output hold characters past U+00FF, as real ones do", () => {
    const text = JSON.stringify(build(100 * 1024, false));
    expect(text.includes("—")).toBe(true);
    expect(text.includes("✓")).toBe(true);
  });

  test("is the same bytes on every call", () => {
    expect(JSON.stringify(build(50 * 1024, true))).toBe(JSON.stringify(build(50 * 1024, true)));
  });

  test("a coding agent's conversation: system prompt, tools, alternating turns, every tool call answered, a plain question last", () => {
    const body = build(100 * 1024, false) as { system: unknown[]; tools: Array<{ name: string }>; messages: Message[] };
    expect(body.tools.map((t) => t.name)).toEqual(expect.arrayContaining(["Bash", "Read", "Edit", "Grep"]));
    expect(body.system.length).toBeGreaterThan(0);
    const roles = body.messages.map((m) => m.role);
    expect(roles).toEqual(roles.map((_, i) => (i % 2 === 0 ? "user" : "assistant")));
    const calls = body.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_use").map((b) => b.id));
    const results = body.messages.flatMap((m) => m.content.filter((b) => b.type === "tool_result").map((b) => b.tool_use_id));
    expect(calls.length).toBeGreaterThan(10);
    expect(results).toEqual(calls);
    expect(body.messages.at(-1)!.content.map((b) => b.type)).toEqual(["text"]);
  });

  test("with images, tool results carry base64 PNGs, most of the body", () => {
    const body = build(512 * 1024, true) as { messages: Message[] };
    const images = body.messages.flatMap((m) => m.content.flatMap((b) => (b.content ?? []).filter((c) => c.type === "image")));
    expect(images.length).toBeGreaterThan(2);
    for (const image of images) {
      expect(image.source).toMatchObject({ type: "base64", media_type: "image/png" });
      expect(Buffer.from(image.source!.data, "base64").subarray(1, 4).toString()).toBe("PNG");
    }
    const base64 = images.reduce((sum, image) => sum + image.source!.data.length, 0);
    expect(base64 / JSON.stringify(body).length).toBeGreaterThan(0.5);
  });
});
