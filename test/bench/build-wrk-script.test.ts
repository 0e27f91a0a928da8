import { describe, expect, test } from "bun:test";
import { buildWrkScript } from "../../src/bench/build-wrk-script.ts";
import { luaLongString } from "../../src/bench/lua-long-string.ts";

describe("luaLongString", () => {
  test.each([
    ["plain JSON", '{"a":"b"}', '[[\n{"a":"b"}]]'],
    ["text containing ]]", "x]]y", "[=[\nx]]y]=]"],
    ["text containing ]] and ]=]", "a]]b]=]c", "[==[\na]]b]=]c]==]"],
    ["unicode is left as is", "héllo", "[[\nhéllo]]"],
  ])("%s", (_name, text, expected) => {
    expect(luaLongString(text)).toBe(expected);
  });
});

describe("buildWrkScript", () => {
  test("sets method, body and every header", () => {
    const script = buildWrkScript({
      id: "chat/json/gateway",
      kind: "path",
      bodyCase: "",
      passes: ["load"],
      warmupRequests: 1,
      format: "chat",
      mode: "json",
      target: "gateway",
      url: "http://127.0.0.1:1/v1/chat/completions",
      headers: { "content-type": "application/json", authorization: "Bearer rl_x" },
      body: '{"model":"normal"}',
    });
    expect(script).toBe(
      [
        'wrk.method = "POST"',
        'wrk.body = [[\n{"model":"normal"}]]',
        "wrk.headers[ [[\ncontent-type]] ] = [[\napplication/json]]",
        "wrk.headers[ [[\nauthorization]] ] = [[\nBearer rl_x]]",
        "",
      ].join("\n"),
    );
  });
});
