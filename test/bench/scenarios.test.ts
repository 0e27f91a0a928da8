import { describe, expect, test } from "bun:test";
import { buildBenchConfig, CROSS_TIERS, SAME_FORMAT_TIER } from "../../src/bench/build-bench-config.ts";
import {
  BODY_CASES,
  buildBodyScenarios,
  buildLongStreamScenarios,
  buildScenarios,
  buildSoakScenarios,
  LONG_STREAM_WORDS,
  TRICKLED_STREAM_GAP_MS,
  type Scenario,
  type ScenarioSelection,
} from "../../src/bench/scenarios.ts";

const endpoints = { direct: "http://sim", bare: "http://bare", gateway: "http://gw", gatewayKey: "rl_test" };
const pick = (selection: Pick<ScenarioSelection, "formats" | "modes" | "targets">): ScenarioSelection => ({ ...selection, latencySec: 1, warmupRequests: 200 });
const all = buildScenarios(pick({ formats: ["messages", "chat", "responses"], modes: ["json", "stream"], targets: ["direct", "bare", "gateway", "cross"] }), endpoints);
const byId = (id: string): Scenario => all.find((s) => s.id === id)!;
const body = (id: string): Record<string, unknown> => JSON.parse(byId(id).body) as Record<string, unknown>;

describe("buildScenarios", () => {
  test("one scenario per format × mode × target, grouped by format then mode", () => {
    expect(all.map((s) => s.id).slice(0, 4)).toEqual([
      "messages/json/direct",
      "messages/json/bare",
      "messages/json/gateway",
      "messages/json/cross",
    ]);
    expect(new Set(all.map((s) => s.id)).size).toBe(24);
  });

  test.each([
    ["messages/json/direct", "http://sim/v1/messages", "sim-all", undefined],
    ["chat/stream/bare", "http://bare/v1/chat/completions", "sim-all", true],
    ["responses/json/gateway", "http://gw/v1/responses", "normal", undefined],
    ["messages/stream/gateway", "http://gw/v1/messages", "normal", true],
    ["messages/stream/cross", "http://gw/v1/messages", "fast", true],
    ["chat/json/cross", "http://gw/v1/chat/completions", "smart", undefined],
    ["responses/json/cross", "http://gw/v1/responses", "smart", undefined],
  ])("%s", (id, url, model, stream) => {
    expect(byId(id).url).toBe(url);
    expect(body(id).model).toBe(model);
    expect(body(id).stream).toBe(stream);
  });

  test.each([
    ["messages/json/gateway", "x-api-key", "rl_test"],
    ["chat/json/gateway", "authorization", "Bearer rl_test"],
    ["messages/stream/cross", "x-api-key", "rl_test"],
    ["responses/json/cross", "authorization", "Bearer rl_test"],
    ["messages/json/bare", "anthropic-version", "2023-06-01"],
    ["responses/stream/direct", "accept", "text/event-stream"],
  ])("%s sends %s", (id, header, value) => {
    expect(byId(id).headers[header]).toBe(value);
  });

  test("the miss rows skip the cache per request; `cached` repeats the gateway request without that", () => {
    const withCached = buildScenarios(pick({ formats: ["chat"], modes: ["json"], targets: ["gateway", "cross", "cached"] }), endpoints);
    const [gateway, cross, cached] = withCached;
    expect(gateway!.headers["cache-control"]).toBe("no-cache");
    expect(cross!.headers["cache-control"]).toBe("no-cache");
    expect(cached!.headers["cache-control"]).toBeUndefined();
    expect(cached!.body).toBe(gateway!.body);
    expect(cached!.url).toBe(gateway!.url);
    expect(cached!.headers.authorization).toBe("Bearer rl_test");
  });

  test("baseline sends the gateway's request, body and headers, to the baseline gateway with its own key", () => {
    const withBaseline = { ...endpoints, baseline: { url: "http://base", key: "rl_base" } };
    for (const format of ["messages", "chat", "responses"] as const) {
      for (const mode of ["json", "stream"] as const) {
        const [gateway, baseline] = buildScenarios(pick({ formats: [format], modes: [mode], targets: ["gateway", "baseline"] }), withBaseline);
        expect(baseline!.id).toBe(`${format}/${mode}/baseline`);
        expect(baseline!.body).toBe(gateway!.body);
        expect(baseline!.url).toBe(gateway!.url.replace("http://gw", "http://base"));
        expect(JSON.stringify(baseline!.headers)).toBe(JSON.stringify(gateway!.headers).replace("rl_test", "rl_base"));
        expect(baseline!.headers["cache-control"]).toBe("no-cache");
        expect(JSON.stringify(baseline!.headers)).not.toContain("rl_test");
      }
    }
  });

  test("baseline without a baseline gateway is a caller's error", () => {
    expect(() => buildScenarios(pick({ formats: ["chat"], modes: ["json"], targets: ["baseline"] }), endpoints)).toThrow(/--baseline/);
  });

  test("direct and bare never carry the gateway key", () => {
    for (const s of all.filter((s) => s.target === "direct" || s.target === "bare")) expect(JSON.stringify(s.headers)).not.toContain("rl_test");
  });

  test("keeps the selection's subset", () => {
    const some = buildScenarios(pick({ formats: ["chat"], modes: ["stream"], targets: ["bare", "gateway"] }), endpoints);
    expect(some.map((s) => s.id)).toEqual(["chat/stream/bare", "chat/stream/gateway"]);
  });
});

describe("the yardstick asks the upstream for the same work as the gateway", () => {
  test("direct and bare carry the effort fields the gateway sets for tier normal", () => {
    const endpoints = { direct: "http://d", bare: "http://b", gateway: "http://g", gatewayKey: "k" };
    const scenarios = buildScenarios(pick({ formats: ["messages", "chat", "responses"], modes: ["json"], targets: ["direct", "bare", "gateway"] }), endpoints);
    const body = (id: string) => JSON.parse(scenarios.find((s) => s.id === id)!.body) as Record<string, unknown>;
    for (const target of ["direct", "bare"]) {
      expect(body(`messages/json/${target}`)).toMatchObject({ model: "sim-all", thinking: { type: "adaptive" }, output_config: { effort: "medium" } });
      expect(body(`chat/json/${target}`)).toMatchObject({ model: "sim-all", reasoning_effort: "medium" });
      expect(body(`responses/json/${target}`)).toMatchObject({ model: "sim-all", reasoning: { effort: "medium" } });
    }
    expect(body("messages/json/gateway").thinking).toBeUndefined();
    expect(body("messages/json/gateway").model).toBe("normal");
  });
});

describe("the bench's gateway config", () => {
  const config = buildBenchConfig("http://127.0.0.1:9");
  const modelOf = (tier: keyof typeof config.tiers) => config.models[config.tiers[tier].models[0]!]!;

  test("same-format tier speaks every client format; each cross tier speaks one other API", () => {
    expect(modelOf("normal").apis).toEqual(["messages", "chat", "responses"]);
    for (const [format, { tier, api }] of Object.entries(CROSS_TIERS)) {
      expect(modelOf(tier).apis).toEqual([api]);
      expect(api).not.toBe(format);
    }
  });

  test("the models differ only in the APIs they speak, so the upstream does the same class of work", () => {
    const strip = (tier: keyof typeof config.tiers) => {
      const { apis: _apis, upstreamId: _id, ...rest } = modelOf(tier);
      return rest;
    };
    expect(strip("fast")).toEqual(strip("normal"));
    expect(strip("smart")).toEqual(strip("normal"));
  });

  test("every class asks every tier for the effort the yardstick sends, and nothing escalates", () => {
    const routing = config.routing!;
    for (const spec of Object.values(routing.classes ?? {})) {
      expect(Object.values(spec.effort ?? {})).toEqual(["medium", "medium", "medium", "medium"]);
    }
    expect(routing.escalation?.enabled).toBe(false);
    expect(config.providers.sim).toMatchObject({ kind: "sim", baseUrl: "http://127.0.0.1:9" });
  });

  test("the response cache is on, so the `cached` rows can measure its hits", () => {
    expect(config.responseCache?.enabled).toBe(true);
  });
});

describe("the path rows' passes", () => {
  test("loaded and one connection; only loaded when the one-connection pass is off", () => {
    expect(all.every((s) => s.kind === "path" && s.passes.join() === "load,single" && s.warmupRequests === 200)).toBe(true);
    const loadOnly = buildScenarios({ formats: ["chat"], modes: ["json"], targets: ["bare"], latencySec: 0, warmupRequests: 10 }, endpoints);
    expect(loadOnly[0]!.passes).toEqual(["load"]);
  });
});

describe("buildBodyScenarios", () => {
  const bodies = buildBodyScenarios(endpoints, 200);
  const sized = (id: string): number => Buffer.byteLength(bodies.find((s) => s.id === id)!.body);

  test("every body case through direct, bare and gateway: Messages, same-format, JSON, one connection", () => {
    expect(bodies.map((s) => s.id)).toEqual(BODY_CASES.flatMap((c) => ["direct", "bare", "gateway"].map((t) => `body/${c.id}/${t}`)));
    for (const s of bodies) expect(s).toMatchObject({ kind: "body", format: "messages", mode: "json", passes: ["single"] });
    expect(bodies.find((s) => s.id === "body/1m/gateway")!.url).toBe("http://gw/v1/messages");
  });

  test("the sizes the issue names; the small case is the path rows' own request", () => {
    expect(sized("body/1k/gateway")).toBeLessThan(1024);
    expect(sized("body/100k/gateway")).toBeGreaterThanOrEqual(100 * 1024);
    expect(sized("body/100k/gateway")).toBeLessThan(120 * 1024);
    expect(sized("body/1m/gateway")).toBeGreaterThanOrEqual(1024 * 1024);
    expect(sized("body/1m-images/gateway")).toBeLessThan(1.2 * 1024 * 1024);
  });

  test("with a baseline checkout, its gateway gets the gateway's body right after it", () => {
    const withBaseline = buildBodyScenarios({ ...endpoints, baseline: { url: "http://base", key: "rl_base" } }, 200, true);
    expect(withBaseline.map((s) => s.id)).toEqual(BODY_CASES.flatMap((c) => ["direct", "bare", "gateway", "baseline"].map((t) => `body/${c.id}/${t}`)));
    const baseline = withBaseline.find((s) => s.id === "body/1m/baseline")!;
    expect(baseline.url).toBe("http://base/v1/messages");
    expect(baseline.body).toBe(withBaseline.find((s) => s.id === "body/1m/gateway")!.body);
  });

  test("heavy bodies warm up with fewer requests", () => {
    expect(bodies.find((s) => s.id === "body/1m/gateway")!.warmupRequests).toBe(30);
    expect(bodies.find((s) => s.id === "body/1k/gateway")!.warmupRequests).toBe(100);
  });

  test("direct and bare send the gateway's forwarded body: the same conversation with the effort set", () => {
    const gateway = JSON.parse(bodies.find((s) => s.id === "body/100k/gateway")!.body) as { model: string; messages: unknown[]; thinking?: unknown };
    const bare = JSON.parse(bodies.find((s) => s.id === "body/100k/bare")!.body) as { model: string; messages: unknown[]; thinking?: unknown };
    expect([gateway.model, bare.model]).toEqual(["normal", "sim-all"]);
    expect(bare.messages).toEqual(gateway.messages);
    expect(bare.thinking).toEqual({ type: "adaptive" });
  });
});

describe("buildLongStreamScenarios", () => {
  test("a stream of LONG_STREAM_WORDS words through the translated path and the bare proxy", () => {
    const [bare, cross] = buildLongStreamScenarios(["messages"], ["bare", "cross"], endpoints, 200);
    expect([bare!.id, cross!.id]).toEqual(["long-stream/messages/bare", "long-stream/messages/cross"]);
    const body = JSON.parse(cross!.body) as { model: string; stream: boolean; max_tokens: number; messages: Array<{ content: string }> };
    expect(body).toMatchObject({ model: "fast", stream: true });
    expect(body.max_tokens).toBeGreaterThan(LONG_STREAM_WORDS);
    expect(body.messages[0]!.content).toContain(`[sim words=${LONG_STREAM_WORDS}]`);
    expect(cross!).toMatchObject({ passes: ["load"], warmupRequests: 20 });
  });

  test("the trickled answer: the sim sends 600 words an event at a time, TRICKLED_STREAM_GAP_MS apart, on every path", () => {
    const [bare, cross, gateway] = buildLongStreamScenarios(["messages"], ["bare", "cross", "gateway"], endpoints, 200, "trickled-stream");
    expect([bare!.id, cross!.id, gateway!.id]).toEqual(["trickled-stream/messages/bare", "trickled-stream/messages/cross", "trickled-stream/messages/gateway"]);
    expect(gateway!.kind).toBe("trickled-stream");
    for (const s of [bare!, cross!, gateway!]) {
      const body = JSON.parse(s.body) as { stream: boolean; max_tokens: number; messages: Array<{ content: string }> };
      expect(body.stream).toBe(true);
      expect(body.max_tokens).toBeGreaterThan(600);
      expect(body.messages[0]!.content).toContain(`[sim words=600 gapMs=${TRICKLED_STREAM_GAP_MS}]`);
    }
    expect(JSON.parse(cross!.body).model).toBe("fast");
    expect(JSON.parse(gateway!.body).model).toBe("normal");
  });

  test("with a baseline checkout, its gateway gets the translated request, with its own key", () => {
    const withBaseline = { ...endpoints, baseline: { url: "http://old", key: "rl_old" } };
    const [cross, baseline] = buildLongStreamScenarios(["messages"], ["cross", "baseline"], withBaseline, 200);
    expect(baseline!.id).toBe("long-stream/messages/baseline");
    expect(baseline!.url.startsWith("http://old/")).toBe(true);
    expect(baseline!.headers["x-api-key"]).toBe("rl_old");
    expect(JSON.parse(baseline!.body)).toEqual(JSON.parse(cross!.body));
  });
});

describe("buildSoakScenarios", () => {
  const soak = buildSoakScenarios(endpoints);

  test("the path rows' four gateway requests, Messages, each a new conversation once its marker is replaced", () => {
    expect(soak.map((s) => s.id)).toEqual(["soak/messages/json/gateway", "soak/messages/json/cross", "soak/messages/stream/gateway", "soak/messages/stream/cross"]);
    for (const s of soak) {
      expect(s).toMatchObject({ kind: "soak", url: "http://gw/v1/messages", passes: ["load"] });
      // The cache is skipped, the answer still stored: a new entry each request.
      expect(s.headers).toMatchObject({ "x-api-key": "rl_test", "cache-control": "no-cache" });
      const marker = s.varyMarker!;
      expect(s.body.split(marker)).toHaveLength(2);
      const sent = JSON.parse(s.body.replace(marker, "ab12cd34-1-7")) as { model: string; stream?: boolean; messages: Array<{ content: string }> };
      expect(sent.messages[0]!.content).toStartWith("Conversation ab12cd34-1-7. ");
      expect(sent.model).toBe(s.target === "cross" ? CROSS_TIERS.messages.tier : SAME_FORMAT_TIER);
      expect(sent.stream === true).toBe(s.mode === "stream");
    }
  });
});
