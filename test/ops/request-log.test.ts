import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { createRequestLog } from "../../src/ops/create-request-log.ts";
import { redactSecrets } from "../../src/ops/redact-secrets.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { DEFAULT_EFFORT_CONFIG } from "../helpers/same-format-config.ts";
import { DATABASE_HOOK_TIMEOUT_MS } from "../helpers/test-database.ts";

/** What a secret is replaced by in the log. */
const REDACTED = "[redacted]";

const dir = mkdtempSync(join(tmpdir(), "routelane-log-"));
const logFile = join(dir, "requests.log");
const lines = (path: string): Array<Record<string, unknown>> =>
  readFileSync(path, "utf8").trim().split("\n").filter(Boolean).map((line) => JSON.parse(line) as Record<string, unknown>);

let gw: TestGateway;
let key: string;
let accountId: string;
beforeAll(async () => {
  gw = await startTestGateway({ fileConfig: DEFAULT_EFFORT_CONFIG, env: { ROUTELANE_LOG_DESTINATION: logFile, ROUTELANE_LOG_LEVEL: "info" } });
  ({ key, accountId } = await gw.account("Enterprise"));
}, DATABASE_HOOK_TIMEOUT_MS);
afterAll(async () => {
  await gw.stop();
  rmSync(dir, { recursive: true, force: true });
}, DATABASE_HOOK_TIMEOUT_MS);

describe("request log", () => {
  test("one JSON line per request with its fields, and never the key", async () => {
    const res = await fetch(`${gw.url}/v1/messages`, {
      method: "POST",
      headers: { "x-api-key": key, "content-type": "application/json", "anthropic-version": "2023-06-01" },
      body: JSON.stringify({ model: "normal", max_tokens: 64, messages: [{ role: "user", content: `secret prompt ${key}` }] }),
    });
    expect(res.status).toBe(200);
    await res.text();
    const requestId = res.headers.get("x-router-request-id");
    await gw.gateway.requestLog.flush();

    const text = readFileSync(logFile, "utf8");
    expect(text).not.toContain(key);
    expect(text).not.toContain("secret prompt");
    const line = lines(logFile).find((l) => l.requestId === requestId);
    expect(line).toBeDefined();
    expect(line).toMatchObject({
      level: "info",
      msg: "request",
      accountId,
      endpoint: "messages",
      stream: false,
      tier: "normal",
      model: "sim-normal",
      effort: "medium",
      source: "default",
      status: 200,
      cacheHit: false,
      attempts: 1,
      failovers: 0,
    });
    expect(new Date(line!.time as string).getTime()).toBeGreaterThan(Date.now() - 60_000);
    expect(line!.latencyMs).toBeNumber();
    expect(line!.ttfbMs).toBeNumber();
    expect((line!.tokens as { output: number }).output).toBeGreaterThan(0);
  }, 30_000);
});

describe("createRequestLog", () => {
  const record = { requestId: "r1", startedAt: 0, endpoint: "chat" as const, stream: true, accountId: "acct_1", status: 200, clientAborted: false, latencyMs: 12.345, ttfbMs: 3.21, cacheHit: true, attempts: 3, warnings: ["dropped logprobs"] };

  test("buffers lines (nothing written synchronously) and writes them on flush", async () => {
    const path = join(dir, "buffered.log");
    const log = createRequestLog({ level: "info", destination: path, logBodies: false });
    log.observe(record);
    let written = "";
    try {
      written = readFileSync(path, "utf8");
    } catch {
      // Not even created yet: the destination opens asynchronously.
    }
    expect(written).toBe("");
    await log.flush();
    const [line] = lines(path);
    expect(line).toMatchObject({ requestId: "r1", failovers: 2, cacheHit: true, warnings: ["dropped logprobs"], latencyMs: 12.3, ttfbMs: 3.2 });
  });

  /** Resolves once `path` holds `count` lines; the test's own timeout is the deadline. */
  async function linesWritten(path: string, count: number): Promise<Array<Record<string, unknown>>> {
    for (;;) {
      let text = "";
      try {
        text = readFileSync(path, "utf8");
      } catch {
        // Not created yet.
      }
      if (text.split("\n").filter(Boolean).length >= count) return lines(path);
      await Bun.sleep(5);
    }
  }

  test("a held line is written within the flush interval without a flush call (a quiet instance's logs show up)", async () => {
    const path = join(dir, "interval.log");
    const log = createRequestLog({ level: "info", destination: path, logBodies: false, flushIntervalMs: 20 });
    log.observe(record);
    expect((await linesWritten(path, 1))[0]).toMatchObject({ requestId: "r1", msg: "request" });
    log.logger.warn("after");
    log.observe({ ...record, requestId: "r2" });
    expect((await linesWritten(path, 3)).map((l) => l.requestId ?? l.msg)).toEqual(["r1", "after", "r2"]);
    await log.flush();
  }, 5_000);

  test.each([
    ["warn", 0],
    ["info", 1],
  ])("level %p keeps %p request lines", async (level, count) => {
    const path = join(dir, `level-${level}.log`);
    const log = createRequestLog({ level, destination: path, logBodies: false });
    log.observe(record);
    log.logger.warn("marker");
    await log.flush();
    expect(lines(path).filter((l) => l.msg === "request")).toHaveLength(count);
  });

  test.each([
    [false, "debug", 0],
    [true, "info", 0],
    [true, "debug", 1],
  ])("body logging %p at level %p writes %p body lines, redacted", async (logBodies, level, count) => {
    const path = join(dir, `bodies-${logBodies}-${level}.log`);
    const log = createRequestLog({ level, destination: path, logBodies });
    log.logBody("r2", { messages: [{ role: "user", content: "use rl_abcdefghijklmnopqrstuvwxyz012345" }], api_key: "plain" });
    log.logger.warn("marker");
    await log.flush();
    const bodies = lines(path).filter((l) => l.msg === "request body");
    expect(bodies).toHaveLength(count);
    const text = readFileSync(path, "utf8");
    expect(text).not.toContain("rl_abcdefghijklmnopqrstuvwxyz012345");
    expect(text).not.toContain('"plain"');
  });
});

describe("redactSecrets", () => {
  test.each([
    ["a Routelane key in text", "key rl_abcdefghijklmnopqrstuvwxyz0123 here", `key ${REDACTED} here`],
    ["a job token in text", "curl -H 'x-job-token: rlj_ABCDEFGHIJKLMNOPQRSTUVWX'", `curl -H 'x-job-token: ${REDACTED}'`],
    ["a bearer value", "Authorization: Bearer abcdefghijklmnop", `Authorization: ${REDACTED}`],
    ["a provider key", "sk-ant-abcdefghijklmnopqrstu", REDACTED],
    ["ordinary text", "hello rl_ world", "hello rl_ world"],
  ])("%s", (_, input, expected) => {
    expect(redactSecrets(input)).toBe(expected);
  });

  test("secret field names are replaced at any depth; other fields are kept", () => {
    expect(redactSecrets({ a: [{ authorization: "x", job_token: "y", text: "ok" }], apiKey: 1 })).toEqual({ a: [{ authorization: REDACTED, job_token: REDACTED, text: "ok" }], apiKey: REDACTED });
  });
});
