import { afterAll, beforeAll, expect, test } from "bun:test";
import { mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { eq } from "drizzle-orm";
import { createAccountStore } from "../../src/accounts/account-store.ts";
import { loadConfig } from "../../src/config/load-config.ts";
import { routingDecisions } from "../../src/db/schema/decision-cache.ts";
import { startGateway, type RunningGateway } from "../../src/start-gateway.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { DATABASE_HOOK_TIMEOUT_MS, openTestDatabase, type TestDatabase } from "../helpers/test-database.ts";
import { oneTurn, PATHS, readMetric, routeOf } from "./start-routing-gateway.ts";

/**
 * With the `llm` classifier the decision cache outlives the process: one gateway classifies a task
 * and stops, a second one starts on the same database with an empty memory, and the same task
 * text is a decision-cache hit there (read from `routing_decisions`). With the rules, which decide
 * the same text the same way in every process, the table is not used. On Postgres the second
 * gateway opens its own connection from the URL, as a restarted process would; on the in-memory
 * PGlite both share the one handle.
 */
let testDatabase: TestDatabase;
let key: string;
const dirs: string[] = [];

beforeAll(async () => {
  testDatabase = await openTestDatabase();
  const { key: created } = await createAccountStore(testDatabase.database).createAccount({ plan: "Enterprise" });
  key = created.key;
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await testDatabase.close();
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
}, DATABASE_HOOK_TIMEOUT_MS);

/** The `llm` classifier: the in-process simulated model's answer names no class, so the rules decide, and the decision is stored. */
const LLM_CONFIG = { ...UNCACHED_CONFIG, routing: { ...UNCACHED_CONFIG.routing!, classifier: { kind: "llm" as const, llmDeadlineMs: 2_000 } } };

async function startOnTestDatabase(fileConfig: object = LLM_CONFIG): Promise<RunningGateway> {
  const dir = mkdtempSync(join(tmpdir(), "routelane-restart-"));
  dirs.push(dir);
  const configPath = join(dir, "config.json");
  writeFileSync(configPath, JSON.stringify(fileConfig));
  const env: Record<string, string> = { PORT: "0", ROUTELANE_DATA_DIR: dir, ROUTELANE_CONFIG: configPath, ROUTELANE_LOG_LEVEL: "warn" };
  const url = testDatabase.databaseUrl;
  if (url) env.DATABASE_URL = url;
  return startGateway(loadConfig(env), { env, seedDemo: false, ...(url ? {} : { database: testDatabase.database }) });
}

async function ask(gateway: RunningGateway, text: string): Promise<ReturnType<typeof routeOf>> {
  const response = await fetch(gateway.url + PATHS.chat, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify(oneTurn("chat", text)),
  });
  expect(response.status).toBe(200);
  await response.text();
  return routeOf(response);
}

const decisionLookups = async (gateway: RunningGateway) => ({
  hit: await readMetric(gateway, "routelane_cache_lookups_total", { cache: "decision", result: "hit" }),
  miss: await readMetric(gateway, "routelane_cache_lookups_total", { cache: "decision", result: "miss" }),
});

const TASK = "Design the migration plan for moving the billing tables to a new schema";

test(
  "a decision made before a restart is reused after it",
  async () => {
    const before = await startOnTestDatabase();
    try {
      expect(await ask(before, TASK)).toMatchObject({ source: "rule", effort: "high" });
      expect(await decisionLookups(before)).toEqual({ hit: 0, miss: 1 });
    } finally {
      // Stopping flushes the background write of the decision.
      await before.stop();
    }
    const rows = await testDatabase.database.db.select().from(routingDecisions);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ taskClass: "planning", rule: "planning-words", model: "sim-normal", effort: "high" });

    // Proof that the row is what decides after the restart: point it at the tier's other model.
    await testDatabase.database.db.update(routingDecisions).set({ model: "sim-normal-b" }).where(eq(routingDecisions.key, rows[0]!.key));

    const after = await startOnTestDatabase();
    try {
      // The conversation's pin stayed in the first process's memory: only the decision explains this.
      const route = await ask(after, TASK);
      expect(route).toMatchObject({ source: "rule", model: "sim-normal-b", effort: "high" });
      expect(await decisionLookups(after)).toEqual({ hit: 1, miss: 0 });
      // Another task is classified afresh.
      expect(await ask(after, "Plan the rollout strategy for the new search service")).toMatchObject({ source: "rule", model: "sim-normal" });
      expect(await decisionLookups(after)).toEqual({ hit: 1, miss: 1 });
    } finally {
      await after.stop();
    }
  },
  DATABASE_HOOK_TIMEOUT_MS,
);

test(
  "with the rules, a decision stays in the process: nothing is read from or written to the table",
  async () => {
    const before = await testDatabase.database.db.select().from(routingDecisions);
    const gateway = await startOnTestDatabase(UNCACHED_CONFIG);
    try {
      const text = "Design the rollback plan for the payments service migration";
      expect(await ask(gateway, text)).toMatchObject({ source: "rule", effort: "high" });
      // The same text again, another conversation: a hit from memory.
      expect(await ask(gateway, `${text} `)).toMatchObject({ source: "rule", effort: "high" });
    } finally {
      await gateway.stop();
    }
    // Before, every new task text was looked up in the table and written to it.
    expect(await testDatabase.database.db.select().from(routingDecisions)).toEqual(before);
  },
  DATABASE_HOOK_TIMEOUT_MS,
);

