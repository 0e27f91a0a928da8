import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { existsSync, rmSync, writeFileSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { makeRepository, runShell, shellBlock, smartPlusConfig } from "./smartplus-helpers.ts";

// The commands Smart+ prints are pasted into a shell: the address in them must come from the
// gateway's own knowledge, or from a proxy only when the operator says one sets the headers.
let gw: TestGateway;
let key: string;
let repo: string;
let own: string;
const pwned = join(tmpdir(), `routelane-pwned-${crypto.randomUUID()}`);

beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: smartPlusConfig({ worker: false }) });
  ({ key } = await gw.account("Enterprise"));
  repo = await makeRepository();
  own = `http://${new URL(gw.url).host}`;
}, 60_000);
afterAll(async () => {
  await gw.stop();
  rmSync(repo, { recursive: true, force: true });
  rmSync(pwned, { force: true });
}, 60_000);

/** Flips server.trustProxy in the gateway's config file and reloads it. */
function trustProxy(on: boolean): void {
  const config = smartPlusConfig({ worker: false });
  writeFileSync(gw.gateway.config.configPath!, JSON.stringify({ ...config, server: { ...config.server, trustProxy: on } }));
  expect(gw.gateway.reload().trustProxy).toBe(on);
}

/** The pack command of a new job's first turn, asked with `headers`. */
async function packCommand(headers: Record<string, string>): Promise<string> {
  const response = await fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json", ...headers },
    body: JSON.stringify({ model: "smart-plus", messages: [{ role: "user", content: `Rename the answer constant ${crypto.randomUUID()}` }] }),
  });
  expect(response.status).toBe(200);
  return shellBlock(((await response.json()) as { choices: { message: { content: string } }[] }).choices[0]!.message.content);
}

/** The upload URL of a pack command. */
const uploadUrlOf = (command: string): string => /'(https?:\/\/[^']*\/upload)'/.exec(command)?.[1] ?? "";

const injection = { "x-forwarded-host": `evil.example/'; touch '${pwned}'; echo '`, "x-forwarded-proto": `https'; touch '${pwned}'; echo '` };

describe("forwarded headers", () => {
  test("off (the default): x-forwarded-* are ignored, valid or not; the command runs as printed and uploads here", async () => {
    trustProxy(false);
    for (const headers of [{ "x-forwarded-host": "gateway.example.com", "x-forwarded-proto": "https" }, injection]) {
      const command = await packCommand(headers);
      expect(uploadUrlOf(command)).toStartWith(`${own}/v1/handoff/job_`);
      expect(command).not.toContain("example");
    }
    const command = await packCommand(injection);
    const run = await runShell(command, repo);
    expect(run.code).toBe(0);
    expect(JSON.parse(run.stdout)).toMatchObject({ state: "queued" });
    expect(existsSync(pwned)).toBe(false);
  }, 60_000);

  test("on: a valid forwarded host and protocol make the address; invalid ones are ignored and the command still runs safely", async () => {
    trustProxy(true);
    try {
      expect(uploadUrlOf(await packCommand({ "x-forwarded-host": "gateway.example.com:8443", "x-forwarded-proto": "https" }))).toStartWith("https://gateway.example.com:8443/v1/handoff/job_");
      // A chain of proxies: the first value is the client's side.
      expect(uploadUrlOf(await packCommand({ "x-forwarded-host": "gateway.example.com, internal:8080", "x-forwarded-proto": "HTTPS, http" }))).toStartWith("https://gateway.example.com/v1/handoff/job_");
      expect(uploadUrlOf(await packCommand({ "x-forwarded-host": "[2001:db8::1]:8443" }))).toStartWith("http://[2001:db8::1]:8443/v1/handoff/job_");
      for (const bad of ["a b", "$(id)", "host`id`", "x;id", "evil.example/path", "user@evil.example", "evil.example:99999", "", "'"]) {
        expect(uploadUrlOf(await packCommand({ "x-forwarded-host": bad, "x-forwarded-proto": "gopher" }))).toStartWith(`${own}/v1/handoff/job_`);
      }
      const command = await packCommand(injection);
      expect(uploadUrlOf(command)).toStartWith(`${own}/v1/handoff/job_`);
      const run = await runShell(command, repo);
      expect(run.code).toBe(0);
      expect(JSON.parse(run.stdout)).toMatchObject({ state: "queued" });
      expect(existsSync(pwned)).toBe(false);
    } finally {
      trustProxy(false);
    }
  }, 60_000);

  test("a Host header that is no host name gets 400 in the caller's shape, never a 500 or a command", async () => {
    const body = JSON.stringify({ model: "smart-plus", messages: [{ role: "user", content: "Rename the answer constant" }] });
    for (const host of ["a b", "x`id`", "evil.example/x?"]) {
      const answer = await new Promise<string>((resolve, reject) => {
        const { port } = new URL(gw.url);
        const socket = connect(Number(port), "127.0.0.1", () =>
          socket.write(`POST /v1/chat/completions HTTP/1.1\r\nHost: ${host}\r\nAuthorization: Bearer ${key}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`),
        );
        let data = "";
        socket.on("data", (chunk) => (data += chunk));
        socket.on("end", () => resolve(data));
        socket.on("error", reject);
      });
      expect(answer.split("\r\n")[0]).toBe("HTTP/1.1 400 Bad Request");
      const error = JSON.parse(answer.slice(answer.indexOf("\r\n\r\n") + 4)) as { error: { type: string; message: string } };
      expect(error.error.type).toBe("invalid_request_error");
      expect(error.error.message).toContain("Host header");
    }
  }, 60_000);
});
