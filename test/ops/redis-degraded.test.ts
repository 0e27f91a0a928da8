import { afterAll, describe, expect, test } from "bun:test";
import { RedisClient } from "bun";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { UNCACHED_CONFIG } from "../helpers/same-format-config.ts";
import { startRedisProxy } from "../helpers/redis-proxy.ts";
import { deleteRedisKeys, startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

/**
 * Redis configured but unreachable: limits fail open (requests are served on in-process counts,
 * never refused for it), the readiness and the metrics say so, and the log gets one line per state
 * change. Auth never fails open.
 */
const REDIS_URL = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

const chat = (gw: TestGateway, key: string, text: string) =>
  fetch(`${gw.url}/v1/chat/completions`, {
    method: "POST",
    headers: { authorization: `Bearer ${key}`, "content-type": "application/json" },
    body: JSON.stringify({ model: "fast", messages: [{ role: "user", content: text }] }),
  });

/** The gateway's log lines about Redis, after the buffered writes are out. */
async function redisLines(gw: TestGateway, path: string): Promise<Array<Record<string, unknown>>> {
  await gw.gateway.requestLog.flush();
  return readFileSync(path, "utf8")
    .split("\n")
    .filter((line) => line.includes('"redis":'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

describe("Redis at a closed port", () => {
  let gw: TestGateway;
  afterAll(() => gw?.stop(), 30_000);

  test("requests are served on in-process limits; readiness says degraded (200), the metric 1", async () => {
    // Port 1 on loopback: nothing listens there, connections are refused at once.
    gw = await startTestGateway({ fileConfig: { ...UNCACHED_CONFIG, responseCache: { enabled: true } }, env: { REDIS_URL: "redis://127.0.0.1:1" } });
    const { key } = await gw.account("Starter");
    for (let i = 0; i < 3; i++) {
      const res = await chat(gw, key, `without redis ${i}`);
      expect(res.status).toBe(200);
      // The in-process counts still hold the plan's limit.
      expect(res.headers.get("x-ratelimit-remaining-requests")).toBe(String(59 - i));
      await res.text();
    }
    const metrics = await (await fetch(`${gw.url}/metrics`)).text();
    expect(metrics).toContain('routelane_redis_degraded{part="limits"} 1');
    expect(metrics).toContain('routelane_redis_degraded{part="response_cache"} 1');
    // Before: 503 {"failing":"redis"}, which takes every instance out of its load balancer at once.
    const ready = await fetch(`${gw.url}/readyz`);
    expect(ready.status).toBe(200);
    expect(await ready.json()).toEqual({ status: "degraded", degraded: ["redis"] });
    const unauthenticated = await chat(gw, "rl_not_a_key", "hi");
    expect(unauthenticated.status).toBe(401);
    await unauthenticated.text();
  }, 60_000);
});

describe("Redis taken away mid-run (a proxy in front of the shared server)", () => {
  let gw: TestGateway | undefined;
  const proxy = startRedisProxy();
  const prefix = `rltest:${process.pid}:${crypto.randomUUID().slice(0, 8)}:`;
  afterAll(async () => {
    await gw?.stop();
    proxy.stop();
    await deleteRedisKeys(REDIS_URL, prefix);
  }, 30_000);

  test("one log line when it goes, none per request, one when it is back; shared counts resume", async () => {
    const dir = mkdtempSync(join(tmpdir(), "routelane-redis-down-"));
    dirs.push(dir);
    const logPath = join(dir, "gateway.log");
    gw = await startTestGateway({
      fileConfig: { ...DEFAULT_CONFIG, responseCache: { enabled: false }, redis: { keyPrefix: prefix, backoffMs: 50 } },
      env: { REDIS_URL: proxy.url, ROUTELANE_LOG_LEVEL: "info", ROUTELANE_LOG_DESTINATION: logPath },
    });
    const admin = new RedisClient(REDIS_URL);
    const { key, accountId } = await gw.account("Starter");
    const rpmKey = `${prefix}limits:{${accountId}}:rpm`;
    try {
      const first = await chat(gw, key, "with redis");
      expect(first.status).toBe(200);
      await first.text();
      expect(Number(await admin.send("ZCARD", [rpmKey]))).toBe(1);

      proxy.cut();
      for (let i = 0; i < 20; i++) {
        const res = await chat(gw, key, `redis gone ${i}`);
        expect(res.status).toBe(200);
        // Counted in process from the outage on.
        expect(res.headers.get("x-ratelimit-remaining-requests")).toBe(String(59 - i));
        await res.text();
      }
      const ready = await fetch(`${gw.url}/readyz`);
      expect(await ready.json()).toEqual({ status: "degraded", degraded: ["redis"] });
      expect(Number(await admin.send("ZCARD", [rpmKey]))).toBe(1);
      // Before: one plain-text line per failed call (pins and limits), and 100 ms added to each request.
      const down = await redisLines(gw, logPath);
      expect(down).toHaveLength(1);
      expect(down[0]).toMatchObject({ level: "warn", redis: "down", retryInMs: 50 });

      proxy.forward();
      // The probe (every 50 ms here) finds it: readiness says so once it has.
      const readiness = async (): Promise<string> => ((await (await fetch(`${gw!.url}/readyz`)).json()) as { status: string }).status;
      for (let i = 0; i < 200 && (await readiness()) !== "ready"; i++) await Bun.sleep(25);
      expect(await (await fetch(`${gw.url}/readyz`)).json()).toEqual({ status: "ready" });
      const back = await chat(gw, key, "redis back");
      expect(back.status).toBe(200);
      await back.text();
      expect(Number(await admin.send("ZCARD", [rpmKey]))).toBe(2);
      const lines = await redisLines(gw, logPath);
      expect(lines.map((line) => line.redis)).toEqual(["down", "up"]);
      expect(lines[1]).toMatchObject({ level: "info", redis: "up" });
      const metrics = await (await fetch(`${gw.url}/metrics`)).text();
      expect(metrics).toContain('routelane_redis_degraded{part="limits"} 0');
    } finally {
      admin.close();
    }
  }, 60_000);
});
