import { afterAll, beforeAll, expect, test } from "bun:test";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

let gw: TestGateway;
let key: string;
beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.account("Enterprise"));
}, 30_000);
afterAll(() => gw.stop(), 30_000);

/** Sends a request whose Host header is not a host name, as curl can (fetch cannot set Host). */
async function withBadHost(method: string, path: string, headers: Record<string, string>): Promise<{ status: number; body: string }> {
  const args = ["curl", "-s", "-X", method, "-H", "Host: a b", "-w", "\n%{http_code}"];
  for (const [name, value] of Object.entries(headers)) args.push("-H", `${name}: ${value}`);
  const run = Bun.spawn([...args, gw.url + path], { stdout: "pipe" });
  const out = await new Response(run.stdout).text();
  const cut = out.lastIndexOf("\n");
  return { status: Number(out.slice(cut + 1)), body: out.slice(0, cut) };
}

const CASES: ReadonlyArray<readonly [method: string, path: string, status: number, auth: "key" | "admin"]> = [
  ["GET", "/v1/models?limit=1", 200, "key"],
  ["GET", "/v1/messages", 405, "key"],
  ["GET", "/no/such/path", 404, "key"],
  ["GET", "/admin/accounts", 200, "admin"],
  ["GET", "/admin/usage?group_by=tier", 200, "admin"],
  ["GET", "/admin/no-such-endpoint", 404, "admin"],
];

for (const [method, path, status, auth] of CASES) {
  test(`${method} ${path} with a Host header that is not a host name: ${status}, not a 500`, async () => {
    const headers: Record<string, string> = auth === "key" ? { "x-api-key": key } : { authorization: `Bearer ${ADMIN_TOKEN}` };
    const answer = await withBadHost(method, path, headers);
    expect(answer.status).toBe(status);
    if (status >= 400) expect(JSON.parse(answer.body).error.message).toBeString();
  });
}
