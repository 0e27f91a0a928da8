/** Creates an Enterprise account through the admin API and returns its API key. */
export async function createBenchAccount(gatewayUrl: string, adminToken: string): Promise<string> {
  const response = await fetch(`${gatewayUrl}/admin/accounts`, {
    method: "POST",
    headers: { authorization: `Bearer ${adminToken}`, "content-type": "application/json" },
    body: JSON.stringify({ plan: "Enterprise" }),
  });
  const text = await response.text();
  if (response.status !== 201) throw new Error(`POST /admin/accounts answered ${response.status}: ${text.slice(0, 300)}`);
  const json: unknown = JSON.parse(text);
  const key = typeof json === "object" && json !== null && "key" in json ? json.key : undefined;
  if (typeof key !== "string" || key === "") throw new Error("POST /admin/accounts: no `key` in the answer");
  return key;
}
