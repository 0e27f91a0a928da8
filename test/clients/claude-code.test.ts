import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { createClientWorkspace } from "./create-client-workspace.ts";
import { findClientBinary } from "./find-client-binary.ts";
import { listTierApis } from "./list-tier-apis.ts";
import { readUpstreamExchange } from "./read-upstream-exchange.ts";
import { describeRun, runClient, type ClientRun } from "./run-client.ts";

// Claude Code (`claude -p`) against the default config: every tier, whatever API its models speak.
// smart-plus answers with the Smart+ job flow (test/smartplus/agents.test.ts covers the agents there).
const TIERS = Object.keys(DEFAULT_CONFIG.tiers).filter((tier) => tier !== "smart-plus");
const binary = findClientBinary("claude");
if (binary.skip) console.warn(`skipping Claude Code: ${binary.skip}`);

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ recordSim: true });
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(() => gw.stop(), 30_000);

/** One `claude -p` run, offline: only the gateway is contacted, nothing of the machine's config is read. */
async function claude(tier: string, prompt: string, extraArgs: readonly string[] = []): Promise<ClientRun> {
  const workspace = createClientWorkspace("claude");
  try {
    return await runClient([...(binary.command ?? []), "-p", prompt, "--model", tier, ...extraArgs], workspace, {
      ANTHROPIC_BASE_URL: gw.url,
      ANTHROPIC_API_KEY: key,
      CLAUDE_CONFIG_DIR: workspace.config,
      // No telemetry, error reports, auto-update or other non-essential traffic: the run is offline.
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
      DISABLE_AUTOUPDATER: "1",
      DISABLE_TELEMETRY: "1",
      DISABLE_ERROR_REPORTING: "1",
      CLAUDE_CODE_MAX_RETRIES: "1",
      // Helper calls (titles, summaries) use the haiku slot: a tier too, never a vendor model id.
      ANTHROPIC_DEFAULT_HAIKU_MODEL: "fast",
    });
  } finally {
    workspace.remove();
  }
}

// Concurrent tests; each timeout includes the wait for one of runClient's few run slots.
describe.concurrent.skipIf(binary.skip !== undefined)("Claude Code (claude -p)", () => {
  for (const tier of TIERS) {
    test(`${tier}: a plain turn prints the simulated answer`, async () => {
      const tag = `claude-${tier}-plain`;
      const run = await claude(tier, `Hello ${tag} from the client test`);
      expect(run.exitCode, describeRun(run)).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`Simulated reply from sim-\\S+: Hello ${tag} from the client test`));
      const { requests, apis } = readUpstreamExchange(gw, tag);
      // Exactly one: a stream Claude Code could not use would show as its non-streaming retry.
      expect(requests.length).toBe(1);
      for (const request of requests) expect((request.body as { model?: unknown }).model).toMatch(/^sim-/);
      for (const upstream of apis) expect(listTierApis(tier)).toContain(upstream);
    }, 120_000);

    test(`${tier}: a tool round trip — the model calls Bash, Claude Code runs it and sends the result back`, async () => {
      const tag = `claude-${tier}-tool`;
      // The command's output (…-42) differs from its text, so finding it proves the command ran.
      const args = JSON.stringify({ command: "echo routelane-tool-$((6*7))", description: "Print a marker" });
      const run = await claude(tier, `Run ${tag} [sim tool=Bash args=${args}]`, ["--allowedTools", "Bash"]);
      expect(run.exitCode, describeRun(run)).toBe(0);
      expect(run.stdout).toContain("Tool result received: routelane-tool-42");
      const { requests, apis, toolResults } = readUpstreamExchange(gw, tag);
      for (const upstream of apis) expect(listTierApis(tier)).toContain(upstream);
      expect(requests.length).toBe(2);
      expect(toolResults.at(-1)?.some((result) => result.includes("routelane-tool-42"))).toBe(true);
    }, 120_000);
  }

  test("normal: asked in plain words to run a back-ticked command, Claude Code runs it and prints the quoted output", async () => {
    const tag = "claude-plain-words";
    const run = await claude("normal", `Run \`echo ${tag}-$((6*7))\` and show me what it prints`, ["--allowedTools", "Bash"]);
    expect(run.exitCode, describeRun(run)).toBe(0);
    expect(run.stdout).toContain(`Tool result received: ${tag}-42`);
    const { requests, toolResults } = readUpstreamExchange(gw, tag);
    expect(requests.length).toBe(2);
    expect(toolResults.at(-1)?.some((result) => result.includes(`${tag}-42`))).toBe(true);
  }, 120_000);
});
