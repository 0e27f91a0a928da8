import { afterEach, describe, expect, test } from "bun:test";
import { GatewayError } from "../../src/canonical/gateway-error.ts";
import type { CanonicalRequest } from "../../src/canonical/request.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import type { Config } from "../../src/config/schema.ts";
import { createMemoryPinStore } from "../../src/routing/create-memory-pin-store.ts";
import { createRouting, type CreateRoutingOptions, type Routing } from "../../src/routing/create-routing.ts";
import { decideRoute, readPinAhead } from "../../src/routing/decide-route.ts";
import { assistant, bashTool, image, request, toolCall, toolResult, user } from "./request-fixtures.ts";

const config = loadConfig({});
const opened: Routing[] = [];
function routing(overrides: Partial<CreateRoutingOptions> = {}): Routing {
  const r = createRouting({ config, pins: createMemoryPinStore(100), ...overrides });
  opened.push(r);
  return r;
}
afterEach(async () => {
  for (const r of opened.splice(0)) await r.close();
});

const system = [{ type: "text" as const, text: "You are a coding agent." }];
const ask = (text: string) => request([user(text)], { system, tools: [bashTool] });
const decide = (r: Routing, req: CanonicalRequest, accountId = "acc", tier: "normal" | "smart" = "normal") =>
  decideRoute(r, { principal: { accountId }, tier, request: req, format: "messages" });

describe("decideRoute", () => {
  test("a new task is classified by the rules; the same text again is a decision-cache hit", async () => {
    const r = routing();
    const first = await decide(r, ask("There is a bug in the login form"));
    expect(first).toMatchObject({ source: "rule", taskClass: "debugging", rule: "debugging-words", modelName: "sim-normal", effort: "high", cached: false });
    expect(first.candidates.map((c) => c.name)).toEqual(["sim-normal", "sim-normal-b"]);
    const again = await decide(r, ask("There is a bug in the login form"), "another-account");
    expect(again).toMatchObject({ source: "rule", taskClass: "debugging", cached: true });
    expect(again.conversationKey).not.toBe(first.conversationKey);
    const plain = await decide(r, ask("Add a dark mode toggle to the settings page."));
    expect(plain).toMatchObject({ source: "default", taskClass: "general", effort: "medium" });
  });

  test("the read renews the pin: an answer that leaves it as it was writes nothing, a changed one writes it; a dry run renews nothing", async () => {
    const store = createMemoryPinStore(100);
    const writes: string[] = [];
    const reads: (number | undefined)[] = [];
    const pins = {
      ...store,
      get(key: string, ttlMs?: number) {
        reads.push(ttlMs);
        return store.get(key, ttlMs);
      },
      set(key: string, pin: Parameters<typeof store.set>[1], ttlMs: number) {
        writes.push(pin.model);
        return store.set(key, pin, ttlMs);
      },
    };
    const r = routing({ pins });
    const turn1 = ask("There is a bug in the login form");
    await (await decide(r, turn1)).recordOutcome("sim-normal");
    await (await decide(r, turn1)).recordOutcome("sim-normal");
    await (await decide(r, turn1)).recordOutcome("sim-normal-b");
    await decideRoute(r, { principal: { accountId: "acc" }, tier: "normal", request: turn1, format: "messages", dryRun: true });
    expect(writes).toEqual(["sim-normal", "sim-normal-b"]);
    const ttl = config.routing.conversations.pinTtlMs;
    expect(reads).toEqual([ttl, ttl, ttl, undefined]);
  });

  test("a pin read ahead is the decision's: renewed once, under the key the decision keeps, and the decision reads no other", async () => {
    const store = createMemoryPinStore(100);
    const reads: { key: string; ttlMs: number | undefined }[] = [];
    const pins = {
      ...store,
      get(key: string, ttlMs?: number) {
        reads.push({ key, ttlMs });
        return store.get(key, ttlMs);
      },
    };
    const r = routing({ pins });
    const turn1 = ask("There is a bug in the login form");
    await (await decide(r, turn1)).recordOutcome("sim-normal-b");
    reads.length = 0;
    const input = { principal: { accountId: "acc" }, tier: "normal" as const, request: turn1, format: "messages" as const };
    const pinRead = readPinAhead(r, input);
    expect(reads).toEqual([{ key: pinRead.key, ttlMs: config.routing.conversations.pinTtlMs }]);
    const decision = await decideRoute(r, { ...input, pinRead });
    expect(reads).toHaveLength(1);
    // The pin read ahead steers the decision as the decision's own read would.
    expect(decision).toMatchObject({ conversationKey: pinRead.key, pinnedModel: "sim-normal-b", modelName: "sim-normal-b", source: "sticky" });
  });

  test("after an answer the tool loop continues on the pinned model, and a new turn sticks to it", async () => {
    const r = routing();
    const turn1 = ask("There is a bug in the login form");
    const d1 = await decide(r, turn1);
    await d1.recordOutcome("sim-normal-b"); // failover answered with the second model
    const loop = request([...turn1.messages, assistant(toolCall("t1")), user(toolResult("t1", "src/login.ts"))], { system, tools: [bashTool] });
    const d2 = await decide(r, loop);
    expect(d2).toMatchObject({ source: "continuation", modelName: "sim-normal-b", taskClass: "debugging", effort: "high", pinnedModel: "sim-normal-b" });
    expect(d2.candidates[0]!.name).toBe("sim-normal-b");
    await d2.recordOutcome("sim-normal-b");
    const next = request([...loop.messages, assistant("Fixed."), user("Summarize the change in one sentence.")], { system, tools: [bashTool] });
    const d3 = await decide(r, next);
    expect(d3).toMatchObject({ source: "sticky", modelName: "sim-normal-b", taskClass: "chore", effort: "low" });
  });

  test("struggling tool results raise the effort for the following turns, success brings it down", async () => {
    const r = routing();
    const turn1 = ask("Add a cache to the user service");
    await (await decide(r, turn1)).recordOutcome("sim-normal");
    const history = [...turn1.messages];
    const step = async (id: string, output: string) => {
      history.push(assistant(toolCall(id, "Bash", `{"command":"bun test ${id}"}`)), user(toolResult(id, output)));
      const d = await decide(r, request([...history], { system, tools: [bashTool] }));
      await d.recordOutcome(d.modelName);
      return d;
    };
    expect(await step("a", "README.md")).toMatchObject({ source: "continuation", effort: "medium", escalation: { steps: 0, outcome: "neutral" } });
    expect(await step("b", "3 tests failed")).toMatchObject({ effort: "high", escalation: { steps: 1, outcome: "struggle" } });
    expect(await step("c", "error: cannot find module")).toMatchObject({ effort: "high", escalation: { steps: 2 } }); // capped at normal's ceiling
    expect(await step("d", "all tests passed")).toMatchObject({ effort: "high", escalation: { steps: 1, outcome: "success" } });
    expect(await step("e", "12 passed")).toMatchObject({ effort: "medium", escalation: { steps: 0 } });
  });

  test("a tool turn that leaves the steps as they were writes no pin; one that moves them does, and its retry moves them no further", async () => {
    const store = createMemoryPinStore(100);
    const writes: number[] = [];
    const set: typeof store.set = (key, pin, ttlMs) => {
      writes.push(pin.escalation.steps);
      return store.set(key, pin, ttlMs);
    };
    const r = routing({ pins: { ...store, set } });
    const turn1 = ask("Add a cache to the user service");
    await (await decide(r, turn1)).recordOutcome("sim-normal");
    const history = [...turn1.messages];
    const step = async (id: string, output: string) => {
      history.push(assistant(toolCall(id, "Bash", `{"command":"bun test ${id}"}`)), user(toolResult(id, output)));
      return answer(request([...history], { system, tools: [bashTool] }));
    };
    const answer = async (req: CanonicalRequest) => {
      const d = await decide(r, req);
      await d.recordOutcome(d.modelName);
      return d.escalation.steps;
    };
    expect(await step("a", "README.md")).toBe(0);
    expect(await step("b", "src/cache.ts")).toBe(0);
    expect(writes).toEqual([0]);
    expect(await step("c", "3 tests failed")).toBe(1);
    expect(writes).toEqual([0, 1]);
    // The same request again (a client's retry): the results it weighed are known, the steps stay.
    expect(await answer(request([...history], { system, tools: [bashTool] }))).toBe(1);
    expect(await step("d", "src/cache.ts")).toBe(1);
    expect(writes).toEqual([0, 1]);
    expect(await step("e", "all tests passed")).toBe(0);
    expect(writes).toEqual([0, 1, 0]);
  });

  test("a switch of model marks the turns answered before it, until the next switch", async () => {
    const r = routing();
    const turn1 = ask("Add a cache to the user service");
    const d1 = await decide(r, turn1);
    await d1.recordOutcome("sim-normal");
    const turn2 = request([...turn1.messages, assistant("Added."), user("Now add tests")], { system, tools: [bashTool] });
    const d2 = await decide(r, turn2);
    expect(d2).toMatchObject({ pinnedModel: "sim-normal", foreignTurns: 0 });
    await d2.recordOutcome("sim-normal-b"); // failover: the one assistant turn so far is another model's
    const turn3 = request([...turn2.messages, assistant("Tests added."), user("Run them")], { system, tools: [bashTool] });
    const d3 = await decide(r, turn3);
    expect(d3).toMatchObject({ pinnedModel: "sim-normal-b", foreignTurns: 1 });
    await d3.recordOutcome("sim-normal-b"); // the same model again: the mark stays
    const turn4 = request([...turn3.messages, assistant("All green."), user("Thanks")], { system, tools: [bashTool] });
    const d4 = await decide(r, turn4);
    expect(d4).toMatchObject({ pinnedModel: "sim-normal-b", foreignTurns: 1 });
    await d4.recordOutcome("sim-normal"); // back: every turn so far was answered before this switch
    expect(await decide(r, request([...turn4.messages, assistant("You are welcome."), user("Bye")], { system, tools: [bashTool] }))).toMatchObject({
      pinnedModel: "sim-normal",
      foreignTurns: 3,
    });
  });

  test("previous_response_id finds the conversation of the response it continues", async () => {
    const r = routing();
    const d1 = await decide(r, ask("Add a cache to the user service"));
    await d1.recordOutcome("sim-normal-b", { responseId: "resp_1" });
    const d2 = await decide(r, request([user("Now add tests")], { previousResponseId: "resp_1", tools: [bashTool] }));
    expect(d2).toMatchObject({ source: "sticky", modelName: "sim-normal-b" });
  });

  test("an open breaker moves the chosen model out of the candidates", async () => {
    const r = routing();
    for (let i = 0; i < config.routing.breaker.failureThreshold; i++) r.breaker.recordFailure("sim-normal");
    const d = await decide(r, ask("Add a cache"));
    expect(d.modelName).toBe("sim-normal");
    expect(d.candidates.map((c) => c.name)).toEqual(["sim-normal-b"]);
  });

  test("a request no model of the tier can serve is refused with 400", async () => {
    const models = Object.fromEntries(Object.entries(config.models).map(([n, m]) => [n, { ...m, vision: false }]));
    const r = routing({ config: { ...config, models } as Config });
    const err = await decide(r, request([user("what is this?", image)])).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(GatewayError);
    expect((err as GatewayError).status).toBe(400);
    expect((err as GatewayError).message).toContain("vision");
  });

  test("the llm classifier is asked once per task text, then the decision cache answers", async () => {
    let asked = 0;
    const llmConfig: Config = { ...config, routing: { ...config.routing, classifier: { kind: "llm", llmDeadlineMs: 200 } } };
    const r = routing({
      config: llmConfig,
      askClass: async () => {
        asked++;
        return "planning";
      },
    });
    const d1 = await decide(r, ask("Make the service faster"), "a", "smart");
    const d2 = await decide(r, ask("Make the service faster"), "b", "smart");
    expect([d1.taskClass, d1.rule, d1.effort, d2.cached, asked]).toEqual(["planning", "llm", "max", true, 1]);
  });

  // Its time is the bench's to measure (the cost section's routing row, p50 target 50 µs), not a
  // test's: what keeps it cheap is that a warm decision comes from the decision cache and reads one pin.
  test("a warm decision of a long request comes from the decision cache and reads one pin", async () => {
    const store = createMemoryPinStore(100);
    let reads = 0;
    const get: typeof store.get = (key, ttlMs) => {
      reads++;
      return store.get(key, ttlMs);
    };
    const r = routing({ pins: { ...store, get } });
    const long = request([user(`Refactor this module please\n${"const x = 1;\n".repeat(20_000)}`)], {
      system: [{ type: "text", text: "s".repeat(30_000) }],
      tools: Array.from({ length: 25 }, () => bashTool),
    });
    const first = await decide(r, long);
    expect(first.cached).toBe(false);
    for (let i = 0; i < 20; i++) {
      expect(await decide(r, long, `acc${i}`)).toMatchObject({ cached: true, taskClass: first.taskClass, modelName: first.modelName });
    }
    expect(reads).toBe(21);
  });
});

describe("decideRoute with an API restriction", () => {
  test("only models callable with the given APIs are candidates", async () => {
    const models = {
      ...config.models,
      "sim-normal": { ...config.models["sim-normal"]!, apis: ["chat" as const] },
      "sim-normal-b": { ...config.models["sim-normal-b"]!, apis: ["messages" as const, "responses" as const] },
    };
    const r = routing({ config: { ...config, models } as Config });
    const d = await decideRoute(r, { principal: { accountId: "x" }, tier: "normal", request: ask("Add a cache"), format: "messages", apis: ["messages"] });
    expect(d.candidates.map((c) => c.name)).toEqual(["sim-normal-b"]);
  });
});
