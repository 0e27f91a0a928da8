import { describe, expect, test } from "bun:test";
import { createTierRewrite } from "../../src/upstream/passthrough/create-tier-rewrite.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";

const PAD = "    ";
const start = 'event: message_start\ndata: {"type":"message_start","message":{"id":"m","model":"sim-normal"}}\n\n';
// A tool's input that quotes the field as JSON structure would (it is not: the pipe never rewrites after message_start).
const later = 'event: content_block_delta\ndata: {"type":"content_block_delta","index":0,"delta":{"type":"input_json_delta","partial_json":"x"},"model":"sim-normal"}\n\n';
const chunk = 'data: {"id":"c","model":"sim-normal","choices":[]}\n\n';

const run = (format: "messages" | "chat", chunks: string[], upstreamId = "sim-normal"): string[] => {
  const rewrite = createTierRewrite(wireApi(format), upstreamId, "normal");
  return chunks.map((c) => rewrite(Buffer.from(c)).toString());
};

describe("createTierRewrite", () => {
  test("Messages: the field in message_start is rewritten, the bytes after it pass as they came", () => {
    const [first, second] = run("messages", [start, later]);
    expect(first).toBe(start.replace('"model":"sim-normal"', `"model":"normal"${PAD}`));
    expect(second).toBe(later);
  });

  test("Messages: chunks before the first field are searched until it comes", () => {
    const ping = "event: ping\ndata: {}\n\n";
    expect(run("messages", [ping, start])).toEqual([ping, start.replace('"model":"sim-normal"', `"model":"normal"${PAD}`)]);
  });

  test("Chat names the model in every chunk: each is rewritten", () => {
    const rewritten = chunk.replace('"model":"sim-normal"', `"model":"normal"${PAD}`);
    expect(run("chat", [chunk, chunk, chunk])).toEqual([rewritten, rewritten, rewritten]);
  });

  test("an upstream id that is the tier itself leaves every byte as it came", () => {
    const same = start.replace("sim-normal", "normal");
    expect(run("messages", [same], "normal")).toEqual([same]);
  });
});
