import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { Writable } from "node:stream";
import pino from "pino";
import { createRequestLog } from "../../src/ops/create-request-log.ts";
import type { RequestRecord } from "../../src/canonical/request-record.ts";

const dir = mkdtempSync(join(tmpdir(), "routelane-log-line-"));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

/** The line as pino itself renders the record's fields with the request log's logger options. */
function pinoLine(record: RequestRecord): string {
  let out = "";
  const sink = new Writable({
    write(chunk, _encoding, done) {
      out += String(chunk);
      done();
    },
  });
  const logger = pino(
    { level: "info", base: undefined, timestamp: pino.stdTimeFunctions.isoTime, formatters: { level: (label) => ({ level: label }) } },
    sink,
  );
  const usage = record.usage;
  const fields = {
    requestId: record.requestId,
    accountId: record.accountId,
    endpoint: record.endpoint,
    stream: record.stream,
    tier: record.tier,
    model: record.model,
    effort: record.effort,
    source: record.source,
    taskClass: record.taskClass,
    status: record.status,
    errorType: record.errorType,
    streamError: record.streamError,
    clientAborted: record.clientAborted || undefined,
    latencyMs: Math.round(record.latencyMs * 10) / 10,
    ttfbMs: record.ttfbMs === undefined ? undefined : Math.round(record.ttfbMs * 10) / 10,
    tokens: usage
      ? { input: usage.inputTokens, output: usage.outputTokens, cacheRead: usage.cacheReadTokens, cacheWrite: usage.cacheWriteTokens, reasoning: usage.reasoningTokens }
      : undefined,
    costUsd: record.costUsd,
    cacheHit: record.cacheHit,
    attempts: record.attempts,
    failovers: Math.max(0, record.attempts - 1),
    warnings: record.warnings.length > 0 ? record.warnings : undefined,
  };
  if (record.status >= 500) logger.warn(fields, "request");
  else logger.info(fields, "request");
  return out;
}

const withoutTime = (line: string): string => line.replace(/"time":"[^"]*"/, '"time":"T"');

const base: RequestRecord = { requestId: "req_1", startedAt: 0, endpoint: "chat", stream: false, status: 200, clientAborted: false, latencyMs: 1.26, cacheHit: false, attempts: 1, warnings: [] };

describe("the request log line is byte for byte what pino wrote", () => {
  test.each<[string, RequestRecord]>([
    ["minimal", base],
    [
      "every field",
      {
        ...base,
        accountId: "acct_1",
        plan: "Pro",
        tier: "normal",
        model: "sim-all",
        effort: "medium",
        source: "rule",
        taskClass: "debug",
        stream: true,
        ttfbMs: 0.04,
        usage: { inputTokens: 61, outputTokens: 256, cacheReadTokens: 3, cacheWriteTokens: 0, reasoningTokens: 64 },
        costUsd: 0.000123,
        cacheHit: true,
        attempts: 3,
        clientAborted: true,
        warnings: ['dropped "logprobs"', "tab\there"],
      },
    ],
    ["server error is a warn line", { ...base, status: 502, errorType: "api_error", streamError: "upstream closed \\ early", latencyMs: Number.NaN }],
  ])("%s", async (name, record) => {
    const path = join(dir, `${name.replaceAll(" ", "-")}.log`);
    const log = createRequestLog({ level: "info", destination: path, logBodies: false });
    log.observe(record);
    await log.flush();
    expect(withoutTime(readFileSync(path, "utf8"))).toBe(withoutTime(pinoLine(record)));
  });

  test("the time is the ISO time of the write", async () => {
    const path = join(dir, "time.log");
    const log = createRequestLog({ level: "info", destination: path, logBodies: false });
    const before = Date.now();
    log.observe(base);
    await log.flush();
    const time = Date.parse((JSON.parse(readFileSync(path, "utf8")) as { time: string }).time);
    expect(time).toBeGreaterThanOrEqual(before);
    expect(time).toBeLessThanOrEqual(Date.now());
  });

  test("request lines and the logger's own lines keep their order", async () => {
    const path = join(dir, "order.log");
    const log = createRequestLog({ level: "info", destination: path, logBodies: false });
    log.observe({ ...base, requestId: "first" });
    log.logger.warn("between");
    log.observe({ ...base, requestId: "last" });
    await log.flush();
    const got = readFileSync(path, "utf8").trim().split("\n").map((l) => JSON.parse(l) as { requestId?: string; msg: string });
    expect(got.map((l) => l.requestId ?? l.msg)).toEqual(["first", "between", "last"]);
  });

  test("many lines reach the file whole and in order", async () => {
    const path = join(dir, "many.log");
    const log = createRequestLog({ level: "info", destination: path, logBodies: false });
    for (let i = 0; i < 500; i++) log.observe({ ...base, requestId: `r${i}` });
    await log.flush();
    const ids = readFileSync(path, "utf8").trim().split("\n").map((l) => (JSON.parse(l) as { requestId: string }).requestId);
    expect(ids).toEqual(Array.from({ length: 500 }, (_, i) => `r${i}`));
  });

  test("a level above the line's keeps it out, as pino's level check did", async () => {
    const path = join(dir, "error-level.log");
    const log = createRequestLog({ level: "error", destination: path, logBodies: false });
    log.observe({ ...base, status: 503 });
    log.logger.error("marker");
    await log.flush();
    expect(readFileSync(path, "utf8").trim().split("\n")).toHaveLength(1);
  });
});
