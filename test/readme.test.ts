import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { ADMIN_TOKEN, startTestGateway, type TestGateway } from "./helpers/start-test-gateway.ts";

const ROOT = join(import.meta.dir, "..");
/** The README and the pages its examples moved to. */
const PAGES = ["README.md", ...readdirSync(join(ROOT, "docs"))
  .filter((name) => name.endsWith(".md"))
  .map((name) => `docs/${name}`)];

interface Block {
  readonly page: string;
  readonly text: string;
}

/** Every code block of one language on every page, as written there. */
function blocks(language: string): Block[] {
  return PAGES.flatMap((page) =>
    [...readFileSync(join(ROOT, page), "utf8").matchAll(new RegExp(`\`\`\`${language}\\n([\\s\\S]*?)\`\`\``, "g"))].map((m) => ({ page, text: m[1]! })),
  );
}

const curlBlocks = blocks("sh").filter((b) => b.text.includes("curl "));
/** Admin CLI examples that need only a running gateway (not a start of their own, not a provider). */
const adminBlocks = blocks("sh").filter((b) => {
  const lines = b.text.split("\n").filter((line) => line.trim() !== "" && !line.startsWith("#"));
  return lines.length > 0 && lines.every((line) => line.startsWith("bun run admin ") && !line.includes("check-config"));
});
const sdkBlocks = blocks("ts").filter((b) => b.text.includes("http://127.0.0.1:8787"));

let gw: TestGateway;
let cwd: string;
let scripts: string;
beforeAll(async () => {
  gw = await startTestGateway();
  const { key } = await gw.account("Enterprise");
  cwd = join(gw.gateway.config.dataDir, "checkout");
  mkdirSync(join(cwd, "data"), { recursive: true });
  writeFileSync(join(cwd, "data", "demo-key.txt"), `${key}\n`, { mode: 0o600 });
  // Inside the checkout, so that the examples' imports find its node_modules.
  scripts = mkdtempSync(join(ROOT, ".readme-examples-"));
}, 30_000);
afterAll(async () => {
  rmSync(scripts, { recursive: true, force: true });
  await gw.stop();
}, 30_000);

/** Runs an example; only the address differs: the test gateway listens on a free port. */
async function run(command: string[], where: string) {
  const env: Record<string, string | undefined> = { ...process.env, ROUTELANE_ADMIN_TOKEN: ADMIN_TOKEN, ROUTELANE_URL: undefined };
  const child = Bun.spawn(command, { cwd: where, env, stdout: "pipe", stderr: "pipe" });
  const [out, err, code] = await Promise.all([new Response(child.stdout).text(), new Response(child.stderr).text(), child.exited]);
  return { out, err, code };
}

const local = (text: string): string => text.replaceAll("http://127.0.0.1:8787", gw.url);

describe("the README's and docs' examples work as written", () => {
  test("there is a curl example for every endpoint", () => {
    const all = curlBlocks.map((b) => b.text).join("\n").replaceAll("\\\n", " ").replaceAll("\n", " ");
    for (const path of ["/v1/messages ", "/v1/messages/count_tokens", "/v1/chat/completions", "/v1/responses", "/v1/models ", "/v1/models/smart", "8787/ ", "/admin/accounts"]) {
      expect(all).toContain(path);
    }
  });

  test("the README has its curl, SDK and admin examples", () => {
    const inReadme = (list: Block[]) => list.filter((b) => b.page === "README.md").length;
    expect([inReadme(curlBlocks) > 0, inReadme(sdkBlocks) > 0, adminBlocks.length > 0]).toEqual([true, true, true]);
  });

  for (const block of curlBlocks) {
    test(`${block.page}: ${block.text.split("\n")[0]}`, async () => {
      const { out, code } = await run(["sh", "-c", local(block.text)], cwd);
      expect(code).toBe(0);
      expect(out.length).toBeGreaterThan(0);
      // Error bodies of either shape, or a stream's error event.
      expect(out).not.toMatch(/"error":\{|"type":"error"|event: error/);
    });
  }

  for (const block of adminBlocks) {
    test(`${block.page}: ${block.text.split("\n")[0]}`, async () => {
      // `bun run admin` runs from the checkout; --url (or ROUTELANE_URL) names the gateway.
      const { out, err, code } = await run(["sh", "-c", local(block.text)], ROOT);
      // `bun run` echoes the command it runs on stderr; a failure would add `error: …`.
      expect({ code, failed: err.includes("error:") }).toEqual({ code: 0, failed: false });
      expect(out.length).toBeGreaterThan(0);
    }, 30_000);
  }

  for (const [i, block] of sdkBlocks.entries()) {
    test(`${block.page}: the SDK example ${i + 1}`, async () => {
      const file = join(scripts, `example-${i}.ts`);
      writeFileSync(file, local(block.text));
      const { out, err, code } = await run(["bun", file], cwd);
      expect({ code, err }).toEqual({ code: 0, err: "" });
      expect(out).toContain("Simulated reply from");
    }, 60_000);
  }
});
