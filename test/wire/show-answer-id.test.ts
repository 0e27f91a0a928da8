import { describe, expect, test } from "bun:test";
import { showAnswerId } from "../../src/wire/show-answer-id.ts";

describe("showAnswerId", () => {
  test("an id already in the client's form passes unchanged", () => {
    expect(showAnswerId("messages", "msg_01XFDUDYJgAACzvnptvVoYEL")).toBe("msg_01XFDUDYJgAACzvnptvVoYEL");
    expect(showAnswerId("chat", "chatcmpl-abc123")).toBe("chatcmpl-abc123");
  });

  test("another API's id keeps its text after the client's prefix", () => {
    expect(showAnswerId("messages", "chatcmpl-abc123")).toBe("msg_chatcmpl-abc123");
    expect(showAnswerId("chat", "msg_01XF")).toBe("chatcmpl-msg_01XF");
    expect(showAnswerId("responses", "gen-1700000000-xyz")).toBe("resp_gen-1700000000-xyz");
  });

  test("characters no API's ids have are dropped; nothing left gives a fixed tail", () => {
    expect(showAnswerId("messages", "functions.call:0 \"x\"")).toBe("msg_functionscall0x");
    expect(showAnswerId("messages", "")).toBe("msg_gateway");
    expect(showAnswerId("messages", "::")).toBe("msg_gateway");
  });
});
