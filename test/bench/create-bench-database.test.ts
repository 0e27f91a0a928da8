import { expect, test } from "bun:test";
import postgres from "postgres";
import { createBenchDatabase } from "../../src/bench/create-bench-database.ts";

const SERVER = process.env.DATABASE_URL;

test.skipIf(!SERVER)("the production profile runs on a database of its own, gone once dropped, even with a connection still open", async () => {
  const created = await createBenchDatabase(SERVER!);
  const name = new URL(created.url).pathname.slice(1);
  expect(name).not.toBe(new URL(SERVER!).pathname.slice(1));
  const inside = postgres(created.url, { max: 1, onnotice: () => {} });
  expect((await inside`select current_database() as name`)[0]!.name).toBe(name);
  await created.drop();
  await inside.end({ timeout: 1 }).catch(() => {});
  const admin = postgres(SERVER!, { max: 1, onnotice: () => {} });
  try {
    expect(await admin`select 1 from pg_database where datname = ${name}`).toHaveLength(0);
  } finally {
    await admin.end({ timeout: 5 });
  }
});
