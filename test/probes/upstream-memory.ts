/**
 * Memory of a gateway process fed an oversized upstream answer: a 200 MB non-streamed answer and a
 * 20 MB SSE line without a newline, on the same-format and the translating path. Prints, per case,
 * the gateway's RSS before, its peak during the request (VmHWM, reset first) and its RSS after.
 *
 *   bun test/probes/upstream-memory.ts [maxUpstreamBodyBytes] [maxUpstreamEventBytes]
 *
 * Without arguments the gateway runs with its defaults. The gateway is a process of its own
 * (`bun run src/main.ts`, PGlite in a temp dir); the upstream runs here.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { knobConfig, startKnobUpstream } from "../helpers/start-knob-upstream.ts";
import { spawnGateway } from "../helpers/spawn-gateway.ts";

const ADMIN = "probe-admin-token-0123456789";
const MB = 1024 * 1024;

function status(pid: number): { rss: number; peak: number } {
  const text = readFileSync(`/proc/${pid}/status`, "utf8");
  const kb = (name: string): number => Number(new RegExp(`${name}:\\s+(\\d+) kB`).exec(text)?.[1] ?? 0);
  return { rss: kb("VmRSS") * 1024, peak: kb("VmHWM") * 1024 };
}

const [bodyCap, eventCap] = process.argv.slice(2).map(Number);
const server = { ...(bodyCap ? { maxUpstreamBodyBytes: bodyCap } : {}), ...(eventCap ? { maxUpstreamEventBytes: eventCap } : {}) };
const upstream = startKnobUpstream();
const dir = mkdtempSync(join(tmpdir(), "routelane-memory-"));
const configPath = join(dir, "config.json");
writeFileSync(configPath, JSON.stringify(knobConfig(upstream.url, server)));
const gateway = await spawnGateway({ PORT: "0", ROUTELANE_CONFIG: configPath, ROUTELANE_DATA_DIR: dir, ROUTELANE_ADMIN_TOKEN: ADMIN, ROUTELANE_LOG_LEVEL: "warn", DATABASE_URL: undefined, REDIS_URL: undefined }, false);
const pid = gateway.process.pid;
try {
  const created = await fetch(`${gateway.url}/admin/accounts`, { method: "POST", headers: { authorization: `Bearer ${ADMIN}`, "content-type": "application/json" }, body: JSON.stringify({ plan: "Enterprise" }) });
  const { key } = (await created.json()) as { key: string };
  const call = async (path: string, body: object): Promise<{ status: number; tail: string }> => {
    const response = await fetch(gateway.url + path, { method: "POST", headers: { "content-type": "application/json", "x-api-key": key }, body: JSON.stringify(body) });
    const text = await response.text();
    return { status: response.status, tail: text.slice(-160).replace(/\s+/g, " ") };
  };
  const chat = (tier: string, text: string, stream: boolean) => call("/v1/chat/completions", { model: tier, stream, messages: [{ role: "user", content: text }] });
  // Warm: every path once, so what follows measures the request and not first-use costs.
  for (const tier of ["fast", "normal"]) for (const stream of [false, true]) await chat(tier, "warm [knob words=3]", stream);
  const cases: Array<[string, () => ReturnType<typeof call>]> = [
    ["200 MB non-stream answer, same-format (chat)", () => chat("fast", "[knob bodyBytes=200000000]", false)],
    ["200 MB non-stream answer, translated (messages → chat)", () => chat("normal", "[knob bodyBytes=200000000]", false)],
    ["20 MB SSE line without newline, same-format (chat)", () => chat("fast", "[knob lineBytes=20000000]", true)],
    ["20 MB SSE line without newline, translated (messages → chat)", () => chat("normal", "[knob lineBytes=20000000]", true)],
  ];
  console.log(`gateway caps: ${JSON.stringify(server)} (empty = defaults)`);
  for (const [name, run] of cases) {
    await Bun.sleep(2000);
    writeFileSync(`/proc/${pid}/clear_refs`, "5");
    const before = status(pid).rss;
    const result = await run();
    const during = status(pid).peak;
    const after = status(pid).rss;
    await Bun.sleep(3000);
    const settled = status(pid).rss;
    console.log(
      `${name}: status ${result.status}; RSS before ${(before / MB).toFixed(0)} MB, peak ${(during / MB).toFixed(0)} MB (+${((during - before) / MB).toFixed(0)}), ` +
        `after ${(after / MB).toFixed(0)} MB, 3 s later ${(settled / MB).toFixed(0)} MB; ends: …${result.tail}`,
    );
  }
} finally {
  gateway.process.kill();
  await gateway.process.exited;
  upstream.stop();
  rmSync(dir, { recursive: true, force: true });
}
