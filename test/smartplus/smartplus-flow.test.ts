import Anthropic from "@anthropic-ai/sdk";
import OpenAI from "openai";
import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { readFileSync, rmSync } from "node:fs";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { jobIdIn, makeRepository, runShell, shellBlock, smartPlusConfig, tokenIn } from "./smartplus-helpers.ts";

let gw: TestGateway;
let key: string;
let accountId: string;
let keyId: string;
let anthropic: Anthropic;
let repo: string;

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: smartPlusConfig() });
  ({ key, accountId, keyId } = await gw.account("Enterprise"));
  anthropic = new Anthropic({ baseURL: gw.url, apiKey: key, maxRetries: 0 });
  repo = await makeRepository();
}, 60_000);
afterAll(async () => {
  await gw.stop();
  rmSync(repo, { recursive: true, force: true });
}, 60_000);

const textOf = (message: Anthropic.Message): string => message.content.flatMap((b) => (b.type === "text" ? [b.text] : [])).join("");

describe("Smart+ end to end", () => {
  test("turn → pack command → ready → apply command → the file changed", async () => {
    const task = 'Please append "patched by smart+" to README.md';
    const first = await anthropic.messages.create({ model: "smart-plus", max_tokens: 1024, messages: [{ role: "user", content: task }] }).withResponse();
    expect(first.response.headers.get("x-router-source")).toBe("smartplus");
    expect(first.response.headers.get("x-router-tier")).toBe("smart-plus");
    expect(first.response.headers.get("x-router-model")).toBe("sim-max");
    expect(["high", "max"]).toContain(first.response.headers.get("x-router-effort")!);
    const firstText = textOf(first.data);
    const jobId = jobIdIn(firstText);
    expect(jobId).not.toBe("");
    expect(tokenIn(firstText)).not.toBe("");
    expect(firstText).not.toContain(key);

    const pack = await runShell(shellBlock(firstText), repo);
    expect(pack.code).toBe(0);
    const uploaded = JSON.parse(pack.stdout) as { job: string; state: string; files: number; bytes: number };
    // README.md, src/app.ts, .gitignore and the untracked notes.txt; never the ignored secret.txt.
    expect(uploaded).toMatchObject({ job: jobId, state: "queued", files: 4 });
    expect(uploaded.bytes).toBeGreaterThan(0);

    // The next turn streams the phases until the patch is ready.
    const stream = anthropic.messages.stream({
      model: "smart-plus",
      max_tokens: 1024,
      messages: [
        { role: "user", content: task },
        { role: "assistant", content: firstText },
        { role: "user", content: "uploaded" },
      ],
    });
    const deltas: string[] = [];
    stream.on("text", (delta) => deltas.push(delta));
    const second = textOf(await stream.finalMessage());
    expect(deltas.length).toBeGreaterThan(1);
    expect(second).toContain(`Job ${jobId}`);
    expect(second).toContain("ready");
    expect(second).toContain("README.md");
    expect(second).not.toContain(key);

    const apply = await runShell(shellBlock(second), repo);
    expect(apply.stderr + apply.stdout).toContain("README.md");
    expect(apply.code).toBe(0);
    expect(readFileSync(join(repo, "README.md"), "utf8")).toBe("# Demo\n\nA small project.\npatched by smart+\n");
    const job = await gw.gateway.database.rows<{ state: string }>(sqlJobState(jobId));
    expect(job[0]?.state).toBe("ready");
    // The job's model call is billed to the account, like any answered request, and to the key
    // whose turn started the job: it counts toward that key's spend cap.
    let billed: { model: string; output: number; cost: number; key: string | null }[] = [];
    for (let i = 0; i < 200 && billed.length === 0; i++) {
      billed = await gw.gateway.database.rows<{ model: string; output: number; cost: number; key: string | null }>(
        sql`select model, output_tokens::int as output, cost_usd as cost, key_id as key from usage_records where account_id = ${accountId} and endpoint = 'smartplus_job'`,
      );
      if (billed.length === 0) await Bun.sleep(25);
    }
    expect(billed.length).toBeGreaterThan(0);
    expect(billed[0]).toMatchObject({ model: "sim-max", key: keyId });
    expect(billed[0]!.output).toBeGreaterThan(0);
    expect(billed[0]!.cost).toBeGreaterThan(0);
  }, 60_000);

  test("Chat Completions and Responses turns start jobs too, streamed and not", async () => {
    const openai = new OpenAI({ baseURL: `${gw.url}/v1`, apiKey: key, maxRetries: 0 });
    const chat = await openai.chat.completions.create({ model: "smart-plus", messages: [{ role: "user", content: "Rename the answer constant" }] }).withResponse();
    expect(chat.response.headers.get("x-router-source")).toBe("smartplus");
    expect(chat.data.model).toBe("smart-plus");
    expect(shellBlock(chat.data.choices[0]!.message.content ?? "")).toContain("/upload");

    const stream = await openai.responses.create({ model: "smart-plus", input: "Document the project in the README", stream: true });
    let text = "";
    let responseId = "";
    for await (const event of stream) {
      if (event.type === "response.output_text.delta") text += event.delta;
      if (event.type === "response.completed") responseId = event.response.id;
    }
    const jobId = jobIdIn(text);
    expect(shellBlock(text)).toContain(`/v1/handoff/${jobId}/upload`);
    // A turn that carries only previous_response_id finds the same job.
    const next = await openai.responses.create({ model: "smart-plus", input: "status?", previous_response_id: responseId });
    expect(next.output_text).toContain(`Job ${jobId} is still waiting for the repository`);
    expect(tokenIn(next.output_text)).not.toBe(tokenIn(text));
  }, 30_000);

  test("agent context is not part of the task; a session header keeps the conversation; \"new job\" starts over after a final job", async () => {
    const headers = { "x-claude-code-session-id": crypto.randomUUID() };
    const user = "<system-reminder>internal agent notes</system-reminder>\nRename the answer constant";
    const first = textOf(await anthropic.messages.create({ model: "smart-plus", max_tokens: 512, messages: [{ role: "user", content: user }] }, { headers }));
    const jobId = jobIdIn(first);
    const [row] = await gw.gateway.database.rows<{ task: string }>(sqlJobTask(jobId));
    expect(row?.task).toBe("Rename the answer constant");
    await gw.gateway.database.rows(sqlFailJob(jobId));
    const history = [{ role: "user" as const, content: user }, { role: "assistant" as const, content: first }];
    const failed = textOf(await anthropic.messages.create({ model: "smart-plus", max_tokens: 512, messages: [...history, { role: "user", content: "status?" }] }, { headers }));
    expect(failed).toContain(`Job ${jobId} failed`);
    const restarted = textOf(await anthropic.messages.create({ model: "smart-plus", max_tokens: 512, messages: [...history, { role: "user", content: "new job" }] }, { headers }));
    const newId = jobIdIn(restarted);
    expect(newId).not.toBe(jobId);
    expect(shellBlock(restarted)).toContain(`/v1/handoff/${newId}/upload`);
    const [again] = await gw.gateway.database.rows<{ task: string }>(sqlJobTask(newId));
    expect(again?.task).toBe("Rename the answer constant");
  });

  test("a Pro account is refused smart-plus with the spec's 403", async () => {
    const { key: proKey } = await gw.account("Pro");
    const response = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": proKey, "anthropic-version": "2023-06-01", "content-type": "application/json" },
      body: JSON.stringify({ model: "smart-plus", max_tokens: 64, messages: [{ role: "user", content: "hi" }] }),
    });
    expect(response.status).toBe(403);
    const body = (await response.json()) as { type: string; error: { type: string; message: string } };
    expect(body.error).toEqual({ type: "permission_error", message: "the `smart-plus` tier is not included in plan `Pro`; available: `fast, normal, smart`" });
  });

  test("a patch that never applies fails the job after the retries, with git's reason", async () => {
    const first = await anthropic.messages.create({ model: "smart-plus", max_tokens: 1024, messages: [{ role: "user", content: "Please break the patch in README.md" }] });
    const firstText = textOf(first);
    expect((await runShell(shellBlock(firstText), repo)).code).toBe(0);
    const second = await anthropic.messages.create({
      model: "smart-plus",
      max_tokens: 1024,
      messages: [
        { role: "user", content: "Please break the patch in README.md" },
        { role: "assistant", content: firstText },
        { role: "user", content: "done" },
      ],
    });
    const text = textOf(second);
    expect(text).toContain("failed: no patch that applies after 3 attempts");
    expect(text).toContain("patch failed");
  }, 60_000);
});

const sqlJobState = (jobId: string) => sql`select state from smartplus_jobs where id = ${jobId}`;
const sqlJobTask = (jobId: string) => sql`select task from smartplus_jobs where id = ${jobId}`;
const sqlFailJob = (jobId: string) => sql`update smartplus_jobs set state = 'failed', error = 'made to fail' where id = ${jobId}`;
