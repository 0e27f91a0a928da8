import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { createJobStore } from "../../src/smartplus/create-job-store.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { ladderToRoot, makeSandbox, MARKER, NAMED_ATTACKS, snapshotTree, type Sandbox } from "./attack-archives.ts";
import { jobIdIn, makeArchive, smartPlusConfig, tokenIn } from "./smartplus-helpers.ts";

// Each attack runs as an agent would run it: a smart-plus turn, the upload, the job, the patch.
// The blobs (and so every scratch tree) sit in a sandbox beside a marker file and an empty folder.
let gw: TestGateway;
let key: string;
let sandbox: Sandbox;
const MARKER_WORD = MARKER.split(":")[0]!;

beforeAll(async () => {
  sandbox = makeSandbox();
  gw = await startTestGateway({ fileConfig: smartPlusConfig({ blobDir: join(sandbox.root, "blobs") }) });
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(async () => {
  await gw.stop();
  rmSync(sandbox.root, { recursive: true, force: true });
}, 60_000);

type ChatMessage = { role: "user" | "assistant"; content: string };
async function chatTurn(messages: readonly ChatMessage[]): Promise<string> {
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "smart-plus", messages }),
  });
  return ((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content;
}

/** Turns until the job is final (each waits for progress); the last turn's text. */
async function awaitFinal(history: readonly ChatMessage[], jobId: string): Promise<string> {
  for (;;) {
    const text = await chatTurn([...history, { role: "user", content: "status?" }]);
    if (text.includes(`Job ${jobId} failed`) || text.includes("/patch")) return text;
  }
}

/** The sandbox without what a job may make itself: its folder, scratch tree, upload and patch. */
function snapshotOutside(): [string, string][] {
  const seen = snapshotTree(sandbox.root, (rel) => /^blobs\/job_[0-9A-Za-z]+\/(tree(\/|$)|upload\.tar\.gz|patch\.diff)/.test(rel));
  return [...seen].filter(([rel]) => !/^blobs\/job_[0-9A-Za-z]+$/.test(rel));
}

/** Everything the job showed anyone: what the model was sent, the turns, the patch. */
function shownSince(received: number, ...texts: string[]): string {
  return JSON.stringify([gw.gateway.sim?.received.slice(received) ?? [], texts]);
}

describe("Smart+ attacks through the real flow", () => {
  for (const [name, build] of Object.entries(NAMED_ATTACKS)) {
    test(`${name}: refused at upload; nothing outside the tree read or written`, async () => {
      const before = snapshotOutside();
      const received = gw.gateway.sim?.received.length ?? 0;
      const history: ChatMessage[] = [{ role: "user", content: `append "reviewed" to README.md (${crypto.randomUUID()})` }];
      const first = await chatTurn(history);
      history.push({ role: "assistant", content: first });
      const jobId = jobIdIn(first);
      const token = tokenIn(first);
      const upload = await fetch(`${gw.url}/v1/handoff/${jobId}/upload`, {
        method: "POST",
        headers: { authorization: `Bearer ${token}`, "content-type": "application/gzip" },
        body: await makeArchive(build(sandbox)),
      });
      const uploadBody = await upload.text();
      const final = await awaitFinal(history, jobId);
      const patch = await fetch(`${gw.url}/v1/handoff/${jobId}/patch`, { headers: { authorization: `Bearer ${token}` } });
      const patchText = await patch.text();
      expect(shownSince(received, uploadBody, final, patchText)).not.toContain(MARKER_WORD);
      expect(snapshotOutside()).toEqual(before);
      expect({ status: upload.status, patch: patch.status }).toEqual({ status: 422, patch: 409 });
      expect(uploadBody).toContain("the upload was refused: the archive");
      expect(final).toContain(`Job ${jobId} failed: the upload was refused`);
    }, 60_000);
  }

  // An archive the upload's check would let through (one taken by an older instance sharing the
  // blobs, say) meets the worker's own extraction: it must hold on its own.
  for (const [name, build] of Object.entries(NAMED_ATTACKS)) {
    test(`${name}: queued past the upload check, the worker refuses it`, async () => {
      const before = snapshotOutside();
      const received = gw.gateway.sim?.received.length ?? 0;
      const history: ChatMessage[] = [{ role: "user", content: `append "reviewed" to README.md (${crypto.randomUUID()})` }];
      const first = await chatTurn(history);
      history.push({ role: "assistant", content: first });
      const jobId = jobIdIn(first);
      mkdirSync(join(sandbox.root, "blobs", jobId), { recursive: true });
      writeFileSync(join(sandbox.root, "blobs", jobId, "upload.tar.gz"), await makeArchive(build(sandbox)));
      expect(await createJobStore(gw.gateway.database).markUploaded(jobId, 1, 1)).toBe(true);
      const final = await awaitFinal(history, jobId);
      const patch = await fetch(`${gw.url}/v1/handoff/${jobId}/patch`, { headers: { authorization: `Bearer ${tokenIn(first)}` } });
      const patchText = await patch.text();
      expect(shownSince(received, final, patchText)).not.toContain(MARKER_WORD);
      expect(snapshotOutside()).toEqual(before);
      expect(patch.status).toBe(409);
      expect(final).toContain(`Job ${jobId} failed: the upload was refused: the archive`);
    }, 60_000);
  }

  test("links stay links: a repository holding some is patched; a patch through one is refused by git", async () => {
    const before = snapshotOutside();
    const received = gw.gateway.sim?.received.length ?? 0;
    const ladder = ladderToRoot(sandbox);
    const archive = () =>
      makeArchive([
        ...ladder.entries,
        { name: "README.md", body: "# Project\n" },
        { name: "src/app.ts", body: "export const answer = 42;\n" },
        { name: "docs/readme.md", type: "symlink", linkname: "../README.md" },
        { name: "lib", type: "symlink", linkname: "src" },
        { name: "box", type: "symlink", linkname: `${ladder.root}${sandbox.root}` },
      ]);
    const run = async (task: string): Promise<{ final: string; jobId: string; patch: Response }> => {
      const history: ChatMessage[] = [{ role: "user", content: `${task} (${crypto.randomUUID()})` }];
      const first = await chatTurn(history);
      history.push({ role: "assistant", content: first });
      const jobId = jobIdIn(first);
      const upload = await fetch(`${gw.url}/v1/handoff/${jobId}/upload`, { method: "POST", headers: { authorization: `Bearer ${tokenIn(first)}`, "content-type": "application/gzip" }, body: await archive() });
      expect(await upload.json()).toMatchObject({ state: "queued", files: 2 });
      const final = await awaitFinal(history, jobId);
      return { final, jobId, patch: await fetch(`${gw.url}/v1/handoff/${jobId}/patch`, { headers: { authorization: `Bearer ${tokenIn(first)}` } }) };
    };
    const good = await run('append "reviewed" to README.md');
    expect(good.patch.status).toBe(200);
    expect(await good.patch.text()).toContain("+reviewed");
    for (const through of ["lib/app.ts", "box/marker.txt"]) {
      const bad = await run(`append "reviewed" to ${through}`);
      expect(bad.final).toContain(`Job ${bad.jobId} failed: no patch that applies`);
      expect(bad.final).toContain("beyond a symbolic link");
    }
    expect(shownSince(received)).not.toContain(MARKER_WORD);
    expect(snapshotOutside()).toEqual(before);
  }, 90_000);
});
