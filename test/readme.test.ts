import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "./helpers/start-test-gateway.ts";

/** Every `sh` block of the README that calls curl, as written there. */
function curlBlocks(): string[] {
  const readme = readFileSync(join(import.meta.dir, "..", "README.md"), "utf8");
  return [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!).filter((block) => block.includes("curl "));
}

let gw: TestGateway;
let cwd: string;
beforeAll(async () => {
  gw = await startTestGateway();
  const { key } = await gw.account("Enterprise");
  cwd = join(gw.gateway.config.dataDir, "checkout");
  mkdirSync(join(cwd, "data"), { recursive: true });
  writeFileSync(join(cwd, "data", "demo-key.txt"), `${key}\n`, { mode: 0o600 });
}, 30_000);
afterAll(() => gw.stop(), 30_000);

describe("README curl examples work as written", () => {
  const blocks = curlBlocks();
  test("there is an example for every endpoint", () => {
    const all = blocks.join("\n");
    for (const path of ["/v1/messages ", "/v1/messages/count_tokens", "/v1/chat/completions", "/v1/responses", "/v1/models ", "/v1/models/smart", "8787/ ", "/admin/accounts"]) {
      expect(all.replaceAll("\\\n", " ").replaceAll("\n", " ")).toContain(path);
    }
  });

  for (const block of blocks) {
    test(block.split("\n")[0]!, async () => {
      // Only the address differs: the test gateway listens on a free port.
      const script = block.replaceAll("http://127.0.0.1:8787", gw.url);
      const env = { ...process.env, ROUTELANE_ADMIN_TOKEN: ADMIN_TOKEN };
      const run = Bun.spawn(["sh", "-c", script], { cwd, env, stdout: "pipe", stderr: "pipe" });
      const [out, code] = [await new Response(run.stdout).text(), await run.exited];
      expect(code).toBe(0);
      expect(out.length).toBeGreaterThan(0);
      // Error bodies of either shape, or a stream's error event.
      expect(out).not.toMatch(/"error":\{|"type":"error"|event: error/);
    });
  }
});
