import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { sql } from "drizzle-orm";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { jobIdIn, makeArchive, smartPlusConfig, tokenIn } from "./smartplus-helpers.ts";

let gw: TestGateway;
let key: string;

const UPLOAD_LIMIT = 64 * 1024;

beforeAll(async () => {
  // No worker here: jobs stay queued, so the endpoints' answers per state can be read.
  gw = await startTestGateway({ fileConfig: smartPlusConfig({ worker: false, uploadLimitBytes: UPLOAD_LIMIT, maxFileBytes: 1000, maxFiles: 5 }) });
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(() => gw.stop(), 60_000);

type ChatMessage = { role: "user" | "assistant"; content: string };

/** One smart-plus Chat turn: the reply's text. */
async function chatTurn(messages: readonly ChatMessage[]): Promise<string> {
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "smart-plus", messages }),
  });
  return ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
}

/** A new job through a smart-plus turn: its id, the token of its pack command, and the conversation so far. */
async function startJob(task: string): Promise<{ job: string; token: string; history: ChatMessage[] }> {
  const history: ChatMessage[] = [{ role: "user", content: `${task} ${crypto.randomUUID()}` }];
  const text = await chatTurn(history);
  history.push({ role: "assistant", content: text });
  return { job: jobIdIn(text), token: tokenIn(text), history };
}

const upload = (job: string, token: string, body: ConstructorParameters<typeof Response>[0], headers: Record<string, string> = {}) =>
  fetch(`${gw.url}/v1/handoff/${job}/upload`, { method: "POST", headers: { authorization: `Bearer ${token}`, "content-type": "application/gzip", ...headers }, body });
const patch = (job: string, headers: Record<string, string>) => fetch(`${gw.url}/v1/handoff/${job}/patch`, { headers });

const goodArchive = () => makeArchive([{ name: "README.md", body: "hello\n" }, { name: "src/", type: "directory" }, { name: "src/a.ts", body: "export {};\n" }]);

async function errorOf(response: Response): Promise<{ type: string; error: { type: string; message: string }; job?: { state: string; error?: string } }> {
  return (await response.json()) as never;
}

describe("handoff tokens", () => {
  test("a job's token works for that job only; API keys, unknown and expired tokens are refused", async () => {
    const a = await startJob("task a");
    const b = await startJob("task b");
    const cases: { name: string; job: string; headers: Record<string, string>; status: number; type: string }[] = [
      { name: "own token", job: a.job, headers: { authorization: `Bearer ${a.token}` }, status: 409, type: "invalid_request_error" },
      { name: "token of job b on job a", job: a.job, headers: { authorization: `Bearer ${b.token}` }, status: 403, type: "permission_error" },
      { name: "API key as bearer", job: a.job, headers: { authorization: `Bearer ${key}` }, status: 401, type: "authentication_error" },
      { name: "API key in x-api-key", job: a.job, headers: { "x-api-key": key }, status: 401, type: "authentication_error" },
      { name: "unknown token", job: a.job, headers: { authorization: "Bearer rlj_notatoken" }, status: 401, type: "authentication_error" },
      { name: "no credential", job: a.job, headers: {}, status: 401, type: "authentication_error" },
    ];
    for (const c of cases) {
      const response = await patch(c.job, c.headers);
      expect({ name: c.name, status: response.status }).toEqual({ name: c.name, status: c.status });
      const body = await errorOf(response);
      expect(body.type).toBe("error");
      expect(body.error.type).toBe(c.type);
    }
    await gw.gateway.database.rows(sql`update smartplus_job_tokens set expires_at = now() - interval '1 second' where job_id = ${a.job}`);
    const expired = await patch(a.job, { authorization: `Bearer ${a.token}` });
    expect(expired.status).toBe(401);
    expect((await errorOf(expired)).error.message).toContain("expired");
  });

  test("the token is stored hashed, never as issued", async () => {
    const a = await startJob("task hashed");
    const rows = await gw.gateway.database.rows<{ token_hash: string }>(sql`select token_hash from smartplus_job_tokens where job_id = ${a.job}`);
    expect(rows).toHaveLength(1);
    expect(rows[0]!.token_hash).toBe(new Bun.CryptoHasher("sha256").update(a.token).digest("hex"));
  });
});

describe("upload and patch", () => {
  test("upload answers 201 with the file count; a second upload 409; the patch 409 with the state until ready", async () => {
    const a = await startJob("task upload");
    const first = await upload(a.job, a.token, await goodArchive());
    expect(first.status).toBe(201);
    expect(await first.json()).toMatchObject({ job: a.job, state: "queued", files: 2 });
    const second = await upload(a.job, a.token, await goodArchive());
    expect(second.status).toBe(409);
    const waiting = await patch(a.job, { authorization: `Bearer ${a.token}` });
    expect(waiting.status).toBe(409);
    expect((await errorOf(waiting)).job?.state).toBe("queued");
  });

  test("an upload past the limit is cut off while streaming (413) and the job still waits", async () => {
    const a = await startJob("task big");
    let sent = 0;
    const endless = new ReadableStream<Uint8Array>({
      pull(controller) {
        // Far more than the limit, in chunks: the server must stop before the end.
        if (sent > UPLOAD_LIMIT * 64) return controller.close();
        sent += 16 * 1024;
        controller.enqueue(new Uint8Array(16 * 1024));
      },
    });
    const response = await upload(a.job, a.token, endless);
    expect(response.status).toBe(413);
    expect((await errorOf(response)).error.type).toBe("request_too_large");
    const state = await gw.gateway.database.rows<{ state: string }>(sql`select state from smartplus_jobs where id = ${a.job}`);
    expect(state[0]!.state).toBe("awaiting_upload");
  });

  const badArchives: { name: string; entries: Parameters<typeof makeArchive>[0]; reason: string }[] = [
    { name: "path traversal", entries: [{ name: "../evil.sh", body: "x" }], reason: "leaves the repository" },
    { name: "absolute path", entries: [{ name: "/etc/passwd", body: "x" }], reason: "absolute path" },
    { name: "symlink out", entries: [{ name: "link", type: "symlink", linkname: "../../etc" }], reason: "points outside" },
    { name: "absolute symlink", entries: [{ name: "link", type: "symlink", linkname: "/etc/passwd" }], reason: "points outside" },
    { name: "write through a link", entries: [{ name: "dir", type: "symlink", linkname: "." }, { name: "dir/x", body: "x" }], reason: "through a link" },
    { name: "device file", entries: [{ name: "dev", type: "character-device", devmajor: 1, devminor: 3 }], reason: "device" },
    { name: "file too large", entries: [{ name: "big.txt", body: "x".repeat(2000) }], reason: "larger than the limit" },
    { name: "too many files", entries: Array.from({ length: 6 }, (_, i) => ({ name: `f${i}.txt`, body: "x" })), reason: "more than 5 files" },
  ];
  for (const bad of badArchives) {
    test(`a bad archive (${bad.name}) fails the job, said at upload, by the patch endpoint and in the next turn`, async () => {
      const a = await startJob(`task ${bad.name}`);
      const response = await upload(a.job, a.token, await makeArchive(bad.entries));
      expect(response.status).toBe(422);
      expect((await errorOf(response)).error.message).toContain(bad.reason);
      const after = await patch(a.job, { authorization: `Bearer ${a.token}` });
      expect(after.status).toBe(409);
      const body = await errorOf(after);
      expect(body.job?.state).toBe("failed");
      expect(body.error.message).toContain(bad.reason);
      const again = await upload(a.job, a.token, await goodArchive());
      expect(again.status).toBe(410);
      const turn = await chatTurn([...a.history, { role: "user", content: "uploaded" }]);
      expect(turn).toContain(`Job ${a.job} failed: the upload was refused`);
      expect(turn).toContain(bad.reason);
    });
  }

  test("not a gzipped tar at all is refused the same way", async () => {
    const a = await startJob("task garbage");
    const response = await upload(a.job, a.token, "this is not an archive");
    expect(response.status).toBe(422);
    expect((await errorOf(response)).error.message).toContain("not a gzipped tar");
  });

  test("after expiry: upload and patch answer 410", async () => {
    const a = await startJob("task expiry");
    await gw.gateway.database.rows(sql`update smartplus_jobs set expires_at = now() - interval '1 second' where id = ${a.job}`);
    expect((await upload(a.job, a.token, await goodArchive())).status).toBe(410);
    expect((await patch(a.job, { authorization: `Bearer ${a.token}` })).status).toBe(410);
  });
});
