import { sql } from "drizzle-orm";
import type { TestGateway } from "./start-test-gateway.ts";

export type UsageRow = {
  readonly input: number;
  readonly output: number;
  readonly cacheRead: number;
  readonly estimated: boolean;
  readonly status: number;
};

/** The usage row of a request, once the usage writer has stored it (within its flush interval). */
export async function usageRowOf(gw: TestGateway, requestId: string): Promise<UsageRow> {
  for (let i = 0; i < 400; i++) {
    const rows = await gw.testDatabase.database.rows<UsageRow>(
      sql`select input_tokens::int as input, output_tokens::int as output, cache_read_tokens::int as "cacheRead", tokens_estimated as estimated, status
          from usage_records where request_id = ${requestId}`,
    );
    if (rows[0]) return rows[0];
    await Bun.sleep(25);
  }
  throw new Error(`no usage row for ${requestId}`);
}
