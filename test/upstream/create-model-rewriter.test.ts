import { describe, expect, test } from "bun:test";
import { createModelRewriter } from "../../src/upstream/passthrough/create-model-rewriter.ts";

function run(chunks: string[]): { out: string; rewritten: number } {
  const rewriter = createModelRewriter("sim-normal", "normal");
  const parts = chunks.map((c) => rewriter.push(Buffer.from(c)));
  parts.push(rewriter.flush());
  return { out: Buffer.concat(parts).toString(), rewritten: rewriter.rewritten };
}

const event = 'data: {"id":"x","model":"sim-normal","choices":[]}\n\n';

describe("createModelRewriter", () => {
  const cases: Array<[string, string[], string, number]> = [
    ["one chunk", [event], 'data: {"id":"x","model":"normal","choices":[]}\n\n', 1],
    ["field split across chunks", ['data: {"id":"x","mod', 'el":"sim-nor', 'mal","choices":[]}\n\n'], 'data: {"id":"x","model":"normal","choices":[]}\n\n', 1],
    ["spaced JSON", ['{"model": "sim-normal"}'], '{"model":"normal"}', 1],
    ["every occurrence", [event, event], 'data: {"id":"x","model":"normal","choices":[]}\n\n'.repeat(2), 2],
    ["escaped text in content is untouched", ['{"text":"say \\"model\\":\\"sim-normal\\""}\n'], '{"text":"say \\"model\\":\\"sim-normal\\""}\n', 0],
    ["another model id is untouched", ['{"model":"sim-normal-b"}\n'], '{"model":"sim-normal-b"}\n', 0],
    ["multi-byte text split mid-character", ['{"t":"h\u00e9', 'llo","model":"sim-normal"}\n'], '{"t":"h\u00e9llo","model":"normal"}\n', 1],
  ];
  for (const [name, chunks, expected, count] of cases) {
    test(name, () => {
      const { out, rewritten } = run(chunks);
      expect(out).toBe(expected);
      expect(rewritten).toBe(count);
    });
  }

  test("bytes split inside a multi-byte character survive", () => {
    const bytes = Buffer.from('data: {"t":"\u00e9\u4e16","model":"sim-normal"}\n\n');
    const rewriter = createModelRewriter("sim-normal", "normal");
    const out = Buffer.concat([rewriter.push(bytes.subarray(0, 14)), rewriter.push(bytes.subarray(14)), rewriter.flush()]);
    expect(out.toString()).toBe('data: {"t":"\u00e9\u4e16","model":"normal"}\n\n');
  });
});
