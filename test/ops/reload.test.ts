import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { writeFileSync } from "node:fs";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

/** The default config with the fast tier's pool replaced. */
const withFastPool = (models: string[]): FileConfig => ({ ...UNCACHED_CONFIG, tiers: { ...DEFAULT_CONFIG.tiers, fast: { ...DEFAULT_CONFIG.tiers.fast, models } } });

let gw: TestGateway;
let key: string;
let configPath: string;
beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: withFastPool(["sim-fast"]) });
  key = (await gw.account("Enterprise")).key;
  configPath = gw.gateway.config.configPath!;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(() => gw.stop(), DATABASE_HOOK_TIMEOUT_MS);

const ask = (): Promise<Response> =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "fast", messages: [{ role: "user", content: "hello" }] }),
  });
const reload = (): Promise<Response> => fetch(`${gw.url}/admin/config/reload`, { method: "POST", headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
const modelOf = async (res: Response): Promise<string | null> => {
  await res.text();
  return res.headers.get("x-router-model");
};

describe("config reload", () => {
  test("swaps the tiers while requests run, none of them failing", async () => {
    expect(await modelOf(await ask())).toBe("sim-fast");
    writeFileSync(configPath, JSON.stringify(withFastPool(["sim-normal"])));
    const during: Array<Promise<Response>> = [];
    for (let i = 0; i < 24; i++) during.push(ask());
    const swapped = reload();
    for (let i = 0; i < 24; i++) during.push(ask());
    const answer = await swapped;
    expect(answer.status).toBe(200);
    expect(await answer.json()).toMatchObject({ reloaded: true, tiers: ["fast", "normal", "smart", "smart-plus"] });
    const statuses = await Promise.all(during.map(async (p) => (await p).status));
    expect(statuses.every((s) => s === 200)).toBe(true);
    expect(await modelOf(await ask())).toBe("sim-normal");
    expect(gw.gateway.config.tiers.fast.models).toEqual(["sim-normal"]);
  }, 30_000);

  test("a model added by a reload is priced from the new file in the usage it records", async () => {
    const priced = { ...DEFAULT_CONFIG.models["sim-fast"]!, upstreamId: "sim-fast", prices: { input: 1_000_000, output: 1_000_000, cacheRead: 0, cacheWrite: 0 } };
    const next = withFastPool(["sim-priced"]);
    writeFileSync(configPath, JSON.stringify({ ...next, models: { ...next.models, "sim-priced": priced } }));
    expect((await reload()).status).toBe(200);
    const res = await ask();
    expect(await modelOf(res)).toBe("sim-priced");
    const requestId = res.headers.get("x-router-request-id")!;
    let cost = 0;
    for (let i = 0; i < 200 && cost === 0; i++) {
      const rows = await gw.testDatabase.database.rows<{ cost: number }>(sql`select cost_usd as cost from usage_records where request_id = ${requestId}`);
      cost = rows[0]?.cost ?? 0;
      if (cost === 0) await Bun.sleep(25);
    }
    // A dollar per token: the cost is the token count itself, so any tokens at all show.
    expect(cost).toBeGreaterThan(1);
  }, 30_000);

  test.each([
    ["not JSON", "{ nope", /not valid JSON/],
    ["an unknown model in a tier", JSON.stringify(withFastPool(["no-such-model"])), /\/tiers\/fast\/models\/0: unknown model "no-such-model"/],
    ["a tier missing", JSON.stringify({ ...DEFAULT_CONFIG, tiers: { fast: DEFAULT_CONFIG.tiers.fast } }), /\/tiers/],
  ])("a bad file (%s) is rejected with the reason and the old config stays", async (_, text, reason) => {
    writeFileSync(configPath, JSON.stringify(withFastPool(["sim-normal"])));
    expect((await reload()).status).toBe(200);
    writeFileSync(configPath, text);
    const res = await reload();
    expect(res.status).toBe(400);
    const body = (await res.json()) as { error: { message: string; code: string } };
    expect(body.error.code).toBe("invalid_config");
    expect(body.error.message).toMatch(reason);
    expect(await modelOf(await ask())).toBe("sim-normal");
  });

  test("the reload endpoint needs the admin token", async () => {
    const res = await fetch(`${gw.url}/admin/config/reload`, { method: "POST", headers: { authorization: "Bearer wrong-token-000000000" } });
    expect(res.status).toBe(401);
    await res.text();
  });

  test("the process settings (port, database, admin token) are kept across a reload", () => {
    writeFileSync(configPath, JSON.stringify(withFastPool(["sim-fast"])));
    const before = gw.gateway.config;
    const after = gw.gateway.reload();
    expect({ port: after.port, host: after.host, dataDir: after.dataDir, adminToken: after.adminToken }).toEqual({
      port: before.port,
      host: before.host,
      dataDir: before.dataDir,
      adminToken: before.adminToken,
    });
    expect(after.tiers.fast.models).toEqual(["sim-fast"]);
  });
});
