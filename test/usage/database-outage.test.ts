import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import postgres from "postgres";
import { sql } from "drizzle-orm";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * A burst of requests while the database drops every connection of the gateway in the middle:
 * the gateway keeps answering (keys are cached, usage is buffered) and, once the database is back,
 * every answered request has exactly one usage row.
 */
const onPostgres = process.env.DATABASE_URL !== undefined;

describe.skipIf(!onPostgres)("usage through a database outage (Postgres)", () => {
  let gw: TestGateway;
  let key: string;
  let accountId: string;

  beforeAll(async () => {
    gw = await startTestGateway({ fileConfig: { ...UNCACHED_CONFIG, usage: { batchRows: 5, flushIntervalMs: 20, maxBufferRows: 10_000 } } });
    ({ key, accountId } = await gw.account("Enterprise"));
  }, 60_000);
  afterAll(() => gw?.stop(), 60_000);

  const ask = async (i: number): Promise<number> => {
    const res = await fetch(`${gw.url}/v1/chat/completions`, {
      method: "POST",
      headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
      body: JSON.stringify({ model: "fast", messages: [{ role: "user", content: `burst ${i} [sim words=3]` }] }),
    });
    await res.text();
    return res.status;
  };

  test("every answered request is recorded once, the outage notwithstanding", async () => {
    const admin = postgres(process.env.DATABASE_URL!, { max: 1, onnotice: () => {} });
    const name = new URL(gw.testDatabase.databaseUrl!).pathname.slice(1);
    try {
      const statuses: number[] = [];
      for (let i = 0; i < 20; i++) statuses.push(await ask(i));
      // Every connection of the gateway to its database is cut, as a restart does.
      await admin`select pg_terminate_backend(pid) from pg_stat_activity where datname = ${name} and pid <> pg_backend_pid()`;
      for (let i = 20; i < 40; i++) statuses.push(await ask(i));
      expect(statuses.every((s) => s === 200)).toBe(true);
      let rows = 0;
      for (let attempt = 0; attempt < 200 && rows < 40; attempt++) {
        await Bun.sleep(25);
        // This handle's connections were cut too: one whose close has not been seen yet fails the
        // query written to it (CONNECTION_CLOSED), and the next attempt gets a new one.
        const counted = await gw.testDatabase.database.rows<{ n: number }>(sql`select count(*)::int as n from usage_records where account_id = ${accountId}`).catch(() => undefined);
        rows = counted?.[0]?.n ?? rows;
      }
      expect(rows).toBe(40);
      const distinct = await gw.testDatabase.database.rows<{ n: number }>(sql`select count(distinct request_id)::int as n from usage_records where account_id = ${accountId}`);
      expect(distinct[0]?.n).toBe(40);
    } finally {
      await admin.end();
    }
  }, 60_000);
});
