import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import type { Subprocess } from "bun";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { startSim, type SimServer } from "../../src/sim/start-sim.ts";
import { readLinesUntil } from "../helpers/read-lines-until.ts";
import { postJson } from "./sim-fixture.ts";

let sim: SimServer;

beforeAll(async () => {
  sim = await startSim({ faults: { "custom-upstream": { delayMs: 1 } } });
});
afterAll(() => sim.stop());

describe("HTTP surface", () => {
  test("url has no trailing slash and the port matches", () => {
    expect(sim.url).toBe(`http://127.0.0.1:${sim.port}`);
    expect(sim.port).toBeGreaterThan(0);
  });

  test("unknown path → 404 in the OpenAI shape; HEAD / too", async () => {
    const res = await postJson(sim, "/v2/whatever", {});
    expect(res.status).toBe(404);
    expect(res.json).toMatchObject({ error: { type: "invalid_request_error", param: null, code: "unknown_url" } });
    const head = await fetch(`${sim.url}/`, { method: "HEAD" });
    expect(head.status).toBe(404);
  });

  test("wrong method → 405 in the called API's shape", async () => {
    const messages = await fetch(`${sim.url}/v1/messages`);
    expect(messages.status).toBe(405);
    expect(await messages.json()).toMatchObject({ type: "error", error: { type: "invalid_request_error" } });
    const chat = await fetch(`${sim.url}/v1/chat/completions`, { method: "PUT", body: "{}" });
    expect(chat.status).toBe(405);
    expect(await chat.json()).toMatchObject({ error: { type: "invalid_request_error" } });
    const models = await fetch(`${sim.url}/v1/models`, { method: "POST" });
    expect(models.status).toBe(405);
  });

  test("invalid JSON → 400 on every POST endpoint", async () => {
    for (const path of ["/v1/messages", "/v1/messages/count_tokens", "/v1/chat/completions", "/v1/responses", "/v1/responses/input_tokens"]) {
      const res = await postJson(sim, path, "{oops");
      expect(res.status).toBe(400);
      const json = res.json as { type?: string; error: { type: string } };
      expect(json.error.type).toBe("invalid_request_error");
      expect(json.type === "error").toBe(path.startsWith("/v1/messages"));
    }
  });

  test("odd bodies never crash: arrays, nulls, wrong types", async () => {
    const bodies: unknown[] = [
      [],
      null,
      { model: 5, max_tokens: 10, messages: [] },
      { model: "m", max_tokens: 10, messages: [null] },
      { model: "m", max_tokens: 10, messages: [{ role: "user", content: [null, 5, { type: "tool_result" }] }], tools: "x", tool_choice: 7 },
      { model: "m", messages: [{ role: "user", content: { weird: true } }], tools: [{ type: "function" }], stop: 5 },
      { model: "m", input: [{ type: "function_call_output" }], tools: [null], reasoning: "high" },
    ];
    for (const path of ["/v1/messages", "/v1/chat/completions", "/v1/responses"]) {
      for (const body of bodies) {
        const res = await postJson(sim, path, body);
        expect([200, 400]).toContain(res.status);
        expect(res.json).toBeDefined();
      }
    }
  });

  test("GET /v1/models lists the built-in sim ids and the fault-config keys", async () => {
    const res = await fetch(`${sim.url}/v1/models?limit=1000`);
    const body = (await res.json()) as { object: string; data: { id: string; object: string; type: string }[] };
    expect(body.object).toBe("list");
    const ids = body.data.map((m) => m.id);
    for (const model of Object.values(DEFAULT_CONFIG.models)) expect(ids).toContain(model.upstreamId);
    expect(ids).toContain("custom-upstream");
    expect(body.data[0]).toMatchObject({ object: "model", type: "model" });
  });

  test("count endpoints agree with the usage the create endpoints report", async () => {
    const tools = [{ name: "lookup", description: "Look a thing up", input_schema: { type: "object", properties: { q: { type: "string" } } } }];
    const messages = [{ role: "user", content: "How many tokens is this sentence exactly?" }];
    const count = await postJson(sim, "/v1/messages/count_tokens", { model: "m", messages, tools });
    const created = await postJson(sim, "/v1/messages", { model: "m", max_tokens: 50, messages, tools });
    const countValue = (count.json as { input_tokens: number }).input_tokens;
    expect(countValue).toBeGreaterThan(10);
    expect((created.json as { usage: { input_tokens: number } }).usage.input_tokens).toBe(countValue);
    const missing = await postJson(sim, "/v1/messages/count_tokens", { model: "m" });
    expect(missing.status).toBe(400);

    const openaiTools = [{ type: "function", name: "lookup", description: "Look a thing up", parameters: tools[0]?.input_schema }];
    const inputTokens = await postJson(sim, "/v1/responses/input_tokens", { model: "m", input: messages[0]?.content, tools: openaiTools });
    expect(inputTokens.json).toEqual({ object: "response.input_tokens", input_tokens: countValue });
    const empty = await postJson(sim, "/v1/responses/input_tokens", {});
    expect(empty.json).toEqual({ object: "response.input_tokens", input_tokens: 0 });
  });

  test("accepts any key, ignores unknown fields, echoes the model", async () => {
    const res = await postJson(
      sim,
      "/v1/chat/completions",
      { model: "whatever-model-7", messages: [{ role: "user", content: "x" }], some_future_field: { a: 1 } },
      { authorization: "Bearer not-a-real-key" },
    );
    expect(res.status).toBe(200);
    expect((res.json as { model: string }).model).toBe("whatever-model-7");
    expect(res.headers.get("x-request-id")).toMatch(/^req_sim/);
  });
});

describe("standalone entry (bun run sim)", () => {
  test("prints its URL, applies config faults of sim models, exits cleanly on SIGTERM", async () => {
    const dir = mkdtempSync(join(tmpdir(), "sim-main-"));
    let child: Subprocess | undefined;
    try {
      const config = structuredClone(DEFAULT_CONFIG);
      const [fast, other] = Object.values(config.models);
      if (!fast || !other) throw new Error("default config has fewer than two models");
      fast.faults = { status: 503, message: "from config" };
      const path = join(dir, "config.json");
      writeFileSync(path, JSON.stringify(config));
      const sim = Bun.spawn(["bun", "run", "src/sim/main.ts"], {
        cwd: join(import.meta.dir, "../.."),
        env: { ...process.env, SIM_PORT: "0", SIM_HOST: "127.0.0.1", ROUTELANE_CONFIG: path },
        stdout: "pipe",
        stderr: "pipe",
      });
      child = sim;
      const [first] = await readLinesUntil(sim.stdout, (lines) => lines.length > 0);
      const match = /^sim listening on (http:\/\/127\.0\.0\.1:\d+)$/.exec(first ?? "");
      expect(match).not.toBeNull();
      const url = match?.[1] ?? "";
      const faulted = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: fast.upstreamId, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(faulted.status).toBe(503);
      expect(((await faulted.json()) as { error: { message: string } }).error.message).toBe("from config");
      const fine = await fetch(`${url}/v1/chat/completions`, {
        method: "POST",
        body: JSON.stringify({ model: other.upstreamId, messages: [{ role: "user", content: "hi" }] }),
      });
      expect(fine.status).toBe(200);
      sim.kill("SIGTERM");
      expect(await sim.exited).toBe(0);
    } finally {
      // A failed check above must not leave the sim running.
      if (child && child.exitCode === null) child.kill("SIGKILL");
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
