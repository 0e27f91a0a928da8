import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { readFileSync, rmSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { drawProgress } from "../../src/cli/smartplus.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { jobIdIn, makeRepository, runShell, smartPlusConfig, tokenIn } from "./smartplus-helpers.ts";

const ROOT = join(import.meta.dir, "..", "..");
let gw: TestGateway;
let key: string;
let repo: string;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: smartPlusConfig() });
  ({ key } = await gw.account("Enterprise"));
  repo = await makeRepository();
}, 60_000);
afterAll(async () => {
  await gw.stop();
  rmSync(repo, { recursive: true, force: true });
}, 60_000);

async function turn(messages: { role: "user" | "assistant"; content: string }[]): Promise<string> {
  const response = await fetch(`${gw.url}/v1/messages`, {
    method: "POST",
    headers: { "x-api-key": key, "anthropic-version": "2023-06-01", "content-type": "application/json" },
    body: JSON.stringify({ model: "smart-plus", max_tokens: 512, messages }),
  });
  const body = (await response.json()) as { content: { type: string; text: string }[] };
  return body.content.map((b) => b.text).join("");
}

const cli = (args: string) => runShell(`bun run --cwd ${ROOT} cli smartplus ${args} --url ${gw.url} --repo ${repo}`, repo);

describe("bun run cli smartplus", () => {
  test("pack and apply do what the shell commands do; a patch that no longer applies is said plainly", async () => {
    const task = 'append "from the cli" to src/app.ts';
    const first = await turn([{ role: "user", content: task }]);
    const job = jobIdIn(first);
    const token = tokenIn(first);
    const packed = await cli(`pack --job ${job} --token ${token}`);
    expect(packed.stderr).toContain("packed 4 files");
    expect(packed.stdout).toContain(`uploaded 4 files`);
    expect(packed.code).toBe(0);
    expect(await cli(`pack --job ${job} --token ${token}`)).toMatchObject({ code: 1 });

    const second = await turn([{ role: "user", content: task }, { role: "assistant", content: first }, { role: "user", content: "uploaded" }]);
    expect(second).toContain("is ready");

    // The file changed since the upload: git apply refuses and the CLI says why.
    const original = readFileSync(join(repo, "src", "app.ts"), "utf8");
    writeFileSync(join(repo, "src", "app.ts"), "export const answer = 43;\n");
    const refused = await cli(`apply --job ${job} --token ${token}`);
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain("git apply failed, so nothing was changed");
    // The patch is kept where the message says, for `git apply --3way`; the test removes it after.
    const saved = /The patch is saved at (\S+);/.exec(refused.stderr)?.[1];
    expect(saved).toBeDefined();
    try {
      expect(readFileSync(saved!, "utf8")).toContain("from the cli");
    } finally {
      rmSync(dirname(saved!), { recursive: true, force: true });
    }
    writeFileSync(join(repo, "src", "app.ts"), original);

    const applied = await cli(`apply --job ${job} --token ${token}`);
    expect(applied.code).toBe(0);
    expect(applied.stdout).toContain(`applied the patch of job ${job}`);
    expect(readFileSync(join(repo, "src", "app.ts"), "utf8")).toBe("export const answer = 42;\nfrom the cli\n");
  }, 60_000);

  test("a wrong token is reported with the server's reason", async () => {
    const result = await cli("apply --job job_x --token rlj_wrong");
    expect(result.code).toBe(1);
    expect(result.stderr).toContain("download failed: 401: invalid or missing job token");
  }, 30_000);

  test("the progress bar", () => {
    expect(drawProgress("uploading", 512 * 1024, 1024 * 1024, 10)).toBe("uploading [#####.....]  50% 0.5 MiB/1.0 MiB");
    expect(drawProgress("downloading", 3 * 1024 * 1024, null)).toBe("downloading 3.0 MiB");
  });
});
