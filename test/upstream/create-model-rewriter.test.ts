import { describe, expect, test } from "bun:test";
import { createModelRewriter, rewriteModel } from "../../src/upstream/passthrough/create-model-rewriter.ts";

function run(chunks: string[], upstreamId = "sim-normal", tier = "normal"): { out: string; rewritten: number } {
  const rewriter = createModelRewriter(upstreamId, tier);
  const parts = chunks.map((c) => rewriter.push(Buffer.from(c)));
  parts.push(rewriter.flush());
  return { out: Buffer.concat(parts).toString(), rewritten: rewriter.rewritten };
}

// "sim-normal" → "normal" is 4 bytes shorter: the field is overwritten in place and padded.
const PAD = "    ";
const event = 'data: {"id":"x","model":"sim-normal","choices":[]}\n\n';
const rewrittenEvent = `data: {"id":"x","model":"normal"${PAD},"choices":[]}\n\n`;

describe("createModelRewriter", () => {
  const cases: Array<[string, string[], string, number]> = [
    ["one chunk", [event], rewrittenEvent, 1],
    ["field split across chunks", ['data: {"id":"x","mod', 'el":"sim-nor', 'mal","choices":[]}\n\n'], rewrittenEvent, 1],
    ["spaced JSON", ['{"model": "sim-normal"}'], `{"model":"normal"${PAD} }`, 1],
    ["every occurrence", [event, event], rewrittenEvent.repeat(2), 2],
    ["escaped text in content is untouched", ['{"text":"say \\"model\\":\\"sim-normal\\""}\n'], '{"text":"say \\"model\\":\\"sim-normal\\""}\n', 0],
    ["another model id is untouched", ['{"model":"sim-normal-b"}\n'], '{"model":"sim-normal-b"}\n', 0],
    ["multi-byte text split mid-character", ['{"t":"h\u00e9', 'llo","model":"sim-normal"}\n'], `{"t":"h\u00e9llo","model":"normal"${PAD}}\n`, 1],
  ];
  for (const [name, chunks, expected, count] of cases) {
    test(name, () => {
      const { out, rewritten } = run(chunks);
      expect(out).toBe(expected);
      expect(rewritten).toBe(count);
    });
  }

  test("padded output is still the same JSON with the tier as model", () => {
    const body = { id: "x", model: "sim-normal", choices: [{ text: "model" }] };
    const { out } = run([`${JSON.stringify(body)}\n`]);
    expect(JSON.parse(out)).toEqual({ ...body, model: "normal" });
  });

  test("a tier name longer than the upstream id is spliced in", () => {
    const { out, rewritten } = run(['{"model":"m1","x":1}\n'], "m1", "smart-plus");
    expect(out).toBe('{"model":"smart-plus","x":1}\n');
    expect(rewritten).toBe(1);
  });

  test("bytes split inside a multi-byte character survive", () => {
    const bytes = Buffer.from('data: {"t":"\u00e9\u4e16","model":"sim-normal"}\n\n');
    const rewriter = createModelRewriter("sim-normal", "normal");
    const out = Buffer.concat([rewriter.push(bytes.subarray(0, 14)), rewriter.push(bytes.subarray(14)), rewriter.flush()]);
    expect(out.toString()).toBe(`data: {"t":"\u00e9\u4e16","model":"normal"${PAD}}\n\n`);
  });

  test("rewriteModel on a whole body", () => {
    const [out, count] = rewriteModel(Buffer.from('{"id":"m","model":"sim-normal","usage":{}}'), "sim-normal", "normal");
    expect(count).toBe(1);
    expect(JSON.parse(out.toString())).toEqual({ id: "m", model: "normal", usage: {} });
  });
});
