/**
 * Every limit is set, so each request checks them all (rpm, concurrency, monthly tokens), as an
 * account on a paying plan does; high enough that the bench is never refused.
 */
const BENCH_LIMITS = { requests_per_minute: 100_000_000, concurrent_requests: 100_000, tokens_per_month: 1_000_000_000_000_000 };

async function adminCall(gatewayUrl: string, adminToken: string, method: string, path: string, body: unknown, expected: number): Promise<unknown> {
  const response = await fetch(`${gatewayUrl}${path}`, {
    method,
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (response.status !== expected) throw new Error(`${method} ${path} answered ${response.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

/** Creates an Enterprise account with every limit set, through the admin API, and returns its API key. */
export async function createBenchAccount(gatewayUrl: string, adminToken: string): Promise<string> {
  const created = await adminCall(gatewayUrl, adminToken, "POST", "/admin/accounts", { plan: "Enterprise" }, 201);
  const key = typeof created === "object" && created !== null && "key" in created ? created.key : undefined;
  const id = typeof created === "object" && created !== null && "id" in created ? created.id : undefined;
  if (typeof key !== "string" || key === "" || typeof id !== "string") throw new Error("POST /admin/accounts: no `key` or `id` in the answer");
  await adminCall(gatewayUrl, adminToken, "PATCH", `/admin/accounts/${id}`, { limits: BENCH_LIMITS }, 200);
  return key;
}
