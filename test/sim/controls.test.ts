import { describe, expect, test } from "bun:test";
import { buildToolArgs } from "../../src/sim/build-tool-args.ts";
import { parseDirectives } from "../../src/sim/parse-directives.ts";
import { parseFaultHeader } from "../../src/sim/parse-fault-header.ts";
import { resolveFault } from "../../src/sim/resolve-fault.ts";
import { splitJson, splitText } from "../../src/sim/split-text.ts";

describe("parseDirectives", () => {
  const cases: [string, string, ReturnType<typeof parseDirectives>][] = [
    ["plain text", "m", { directive: {}, text: "plain text" }],
    ['a [sim status=503 message="busy now"] b', "m", { directive: { status: 503, message: "busy now" }, text: "a  b" }],
    ["[sim delay=200][sim cut=3] x", "m", { directive: { delayMs: 200, cutAfterEvents: 3 }, text: " x" }],
    ["[sim malformed=0 words=5]", "m", { directive: { malformedAt: 0, words: 5 }, text: "" }],
    ["[sim tool=get_weather,get_time]", "m", { directive: { tools: ["get_weather", "get_time"] }, text: "" }],
    [
      '[sim tool=get_weather args={"city":"Paris","tags":["a]"]}] go',
      "m",
      { directive: { tools: ["get_weather"], args: { city: "Paris", tags: ["a]"] } }, text: " go" },
    ],
    ["[sim model=other status=500] hi", "m", { directive: {}, text: " hi" }],
    ["[sim model=m status=500] hi", "m", { directive: { status: 500 }, text: " hi" }],
    ["[sim status=503] then [sim status=429]", "m", { directive: { status: 429 }, text: " then " }],
    ["[simulate this] and [sim unclosed=1", "m", { directive: {}, text: "[simulate this] and [sim unclosed=1" }],
    ["[sim status=200 cut=-1 words=abc]", "m", { directive: {}, text: "" }],
  ];
  for (const [input, model, expected] of cases) {
    test(JSON.stringify(input), () => expect(parseDirectives(input, model)).toEqual(expected));
  }
});

describe("parseFaultHeader and resolveFault", () => {
  test("header keys, quoting and model filter", () => {
    expect(parseFaultHeader("status=503; delay=100; cut=2; malformed=1", "m")).toEqual({ status: 503, delayMs: 100, cutAfterEvents: 2, malformedAt: 1 });
    expect(parseFaultHeader('status=500; message="a; b"', "m")).toMatchObject({ status: 500 });
    expect(parseFaultHeader("model=x; status=500", "m")).toBeNull();
    expect(parseFaultHeader(null, "m")).toBeNull();
  });

  test("directive > header > config; status and message travel together", () => {
    expect(resolveFault({}, null, { status: 529, message: "cfg", delayMs: 5 })).toEqual({ status: 529, message: "cfg", delayMs: 5 });
    expect(resolveFault({ status: 400 }, { status: 429, message: "hdr" }, { status: 529, message: "cfg" })).toEqual({ status: 400 });
    expect(resolveFault({ cutAfterEvents: 1 }, { status: 429, message: "hdr" }, { delayMs: 3 })).toEqual({
      status: 429,
      message: "hdr",
      cutAfterEvents: 1,
      delayMs: 3,
    });
  });
});

describe("buildToolArgs", () => {
  test("required properties by type, else all; enums and consts; no schema → {}", () => {
    expect(
      buildToolArgs({
        type: "object",
        properties: { s: { type: "string" }, n: { type: "number" }, i: { type: "integer" }, b: { type: "boolean" }, a: { type: "array" }, o: { type: "object" }, skip: { type: "string" } },
        required: ["s", "n", "i", "b", "a", "o"],
      }),
    ).toEqual({ s: "sim_s", n: 1, i: 1, b: true, a: [], o: {} });
    expect(buildToolArgs({ type: "object", properties: { unit: { enum: ["c", "f"] }, v: { const: 2 }, t: { type: ["null", "integer"] } } })).toEqual({ unit: "c", v: 2, t: 1 });
    expect(buildToolArgs(undefined)).toEqual({});
  });
});

describe("splitText / splitJson", () => {
  test("deltas concatenate back exactly", () => {
    const text = "  one two  three four five six seven ";
    expect(splitText(text).join("")).toBe(text);
    expect(splitText(text).length).toBe(3);
    const json = JSON.stringify({ city: "Paris", days: 3 });
    expect(splitJson(json).join("")).toBe(json);
    expect(splitJson(json).length).toBe(3);
  });
});
