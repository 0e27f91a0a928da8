import { describe, expect, test } from "bun:test";
import { showAnswerId } from "../../src/wire/show-answer-id.ts";

describe("showAnswerId", () => {
  test("an id already in the client's form passes unchanged", () => {
    expect(showAnswerId("msg_", "msg_01XFDUDYJgAACzvnptvVoYEL")).toBe("msg_01XFDUDYJgAACzvnptvVoYEL");
    expect(showAnswerId("chatcmpl-", "chatcmpl-abc123")).toBe("chatcmpl-abc123");
  });

  test("another API's id keeps its text after the client's prefix", () => {
    expect(showAnswerId("msg_", "chatcmpl-abc123")).toBe("msg_chatcmpl-abc123");
    expect(showAnswerId("chatcmpl-", "msg_01XF")).toBe("chatcmpl-msg_01XF");
    expect(showAnswerId("resp_", "gen-1700000000-xyz")).toBe("resp_gen-1700000000-xyz");
  });

  test("characters no API's ids have are dropped; nothing left gives a fixed tail", () => {
    expect(showAnswerId("msg_", "functions.call:0 \"x\"")).toBe("msg_functionscall0x");
    expect(showAnswerId("msg_", "")).toBe("msg_gateway");
    expect(showAnswerId("msg_", "::")).toBe("msg_gateway");
  });
});
