import { describe, expect, test } from "bun:test";
import {
  packForeignThinking,
  packResponsesReasoning,
  unpackForeignThinking,
  unpackResponsesReasoning,
} from "../../../src/wire/pack-reasoning.ts";

describe("reasoning packing", () => {
  const refs = [{ id: "rs_1", encryptedContent: "gAAAA+/=" }, { id: "rs_2" }];
  for (const ref of refs) {
    test(`rlr1 round trip ${JSON.stringify(ref)}`, () => {
      const signature = packResponsesReasoning(ref);
      expect(signature).toMatch(/^rlr1\.[A-Za-z0-9_-]+$/);
      expect(unpackResponsesReasoning(signature)).toEqual(ref);
    });
  }
  test("rlr1 payload is base64url of {id, encrypted_content}", () => {
    const signature = packResponsesReasoning({ id: "rs_1", encryptedContent: "e" });
    expect(JSON.parse(Buffer.from(signature.slice(5), "base64url").toString())).toEqual({ id: "rs_1", encrypted_content: "e" });
  });
  const thinkings = [{ text: "Plan ü", signature: "EqQBCkgIARABGAIiQ" }, { text: "unsigned" }];
  for (const thinking of thinkings) {
    test(`rlm1 round trip ${JSON.stringify(thinking)}`, () => {
      expect(unpackForeignThinking(packForeignThinking(thinking))).toEqual(thinking);
    });
  }
  const foreign = [undefined, "", "anthropic-signature", "rlm1.xxx", "rlr1.!!!", "rlr1." + Buffer.from("[1]").toString("base64url")];
  for (const value of foreign) {
    test(`not ours: ${JSON.stringify(value)}`, () => {
      expect(unpackResponsesReasoning(value)).toBeNull();
      if (value === undefined || !value.startsWith("rlm1.")) expect(unpackForeignThinking(value)).toBeNull();
    });
  }
});
