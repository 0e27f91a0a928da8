import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { buildWrkScript } from "../../src/bench/build-wrk-script.ts";
import { createChildGroup } from "../../src/bench/child-group.ts";
import { luaLongString } from "../../src/bench/lua-long-string.ts";
import { hasWrk, runWrk } from "../../src/bench/run-wrk.ts";
import type { Scenario } from "../../src/bench/scenarios.ts";
import { varyingScenario } from "./varying-scenario.ts";

/** CI (and `.ci/run`) installs wrk: there, a missing wrk fails the test instead of skipping it. */
const WRK_REQUIRED = process.env.CI === "true" || process.env.ROUTELANE_REQUIRE_WRK === "1";
if (!hasWrk() && !WRK_REQUIRED) console.warn("wrk test skipped: wrk is not on PATH (apt-get install -y wrk; CI installs it and requires it)");

const varying = (url: string): Scenario =>
  varyingScenario(url, "soak/messages/json/gateway", '{"messages":[{"role":"user","content":"Conversation #n#. Hi ]] there"}]}', "#n#");

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

describe("buildWrkScript with a varying body", () => {
  test("cuts the body at the marker and builds each request's body from the run's text, the thread's number and its count", () => {
    const script = buildWrkScript(varying("http://127.0.0.1:1/v1/messages"), "run7-");
    expect(script).toContain('local head = [[\n{"messages":[{"role":"user","content":"Conversation run7-]]');
    expect(script).toContain('local tail = [=[\n. Hi ]] there"}]}]=]');
    expect(script).toContain('return wrk.format(nil, nil, nil, head .. thread_number .. "-" .. sent .. tail)');
    expect(script).not.toContain("wrk.body");
    expect(script).not.toContain("#n#");
  });

  const dir = mkdtempSync(join(tmpdir(), "routelane-wrk-"));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  test.skipIf(!hasWrk() && !WRK_REQUIRED)("under wrk every request carries a body of its own, valid JSON with its own Content-Length", async () => {
    if (!hasWrk()) throw new Error("wrk is required here (CI) but is not on PATH: install the Debian package wrk");
    const bodies: string[] = [];
    let badLength = 0;
    const server = Bun.serve({
      port: 0,
      hostname: "127.0.0.1",
      async fetch(request) {
        const text = await request.text();
        if (Number(request.headers.get("content-length")) !== Buffer.byteLength(text)) badLength++;
        bodies.push(text);
        return new Response("{}", { headers: { "content-type": "application/json" } });
      },
    });
    const group = createChildGroup();
    try {
      const result = await runWrk(varying(`http://127.0.0.1:${server.port}/v1/messages`), { connections: 4, durationSec: 1, scriptDir: dir, group });
      expect(result.errors).toBe(0);
      expect(bodies.length).toBeGreaterThan(10);
      const texts = bodies.map((body) => (JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0]!.content);
      // The run's own text, then two wrk threads, each counting its own: "Conversation 1a2b3c4d-1-1", "…-2-1", …
      for (const text of texts) expect(text).toMatch(/^Conversation [0-9a-f]{8}-[12]-\d+\. Hi \]\] there$/);
      expect(new Set(texts).size).toBe(texts.length);
      // The next run of wrk sends bodies of its own, none of the first run's.
      const first = new Set(texts);
      bodies.length = 0;
      await runWrk(varying(`http://127.0.0.1:${server.port}/v1/messages`), { connections: 2, durationSec: 1, scriptDir: dir, group });
      expect(bodies.length).toBeGreaterThan(10);
      expect(bodies.some((body) => first.has((JSON.parse(body) as { messages: Array<{ content: string }> }).messages[0]!.content))).toBe(false);
      expect(badLength).toBe(0);
    } finally {
      await group.stopAll();
      server.stop(true);
    }
  });
});
