import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";
import { createClientWorkspace } from "./create-client-workspace.ts";
import { findClientBinary } from "./find-client-binary.ts";
import { listTierApis } from "./list-tier-apis.ts";
import { readUpstreamExchange } from "./read-upstream-exchange.ts";
import { describeRun, runClient, type ClientRun } from "./run-client.ts";

// Codex (`codex exec`) against the default config: every tier, whatever API its models speak.
// smart-plus answers with the Smart+ job flow (test/smartplus/agents.test.ts covers the agents there).
const TIERS = Object.keys(DEFAULT_CONFIG.tiers).filter((tier) => tier !== "smart-plus");
const binary = findClientBinary("codex");
if (binary.skip) console.warn(`skipping Codex: ${binary.skip}`);

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ recordSim: true });
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(() => gw.stop(), 30_000);

/** A CODEX_HOME whose only provider is the gateway; analytics and feedback off so the run stays offline. */
function codexConfig(baseUrl: string, tier: string): string {
  return [
    `model = ${JSON.stringify(tier)}`,
    `model_provider = "routelane"`,
    `check_for_update_on_startup = false`,
    ``,
    `[model_providers.routelane]`,
    `name = "Routelane"`,
    `base_url = ${JSON.stringify(`${baseUrl}/v1`)}`,
    `env_key = "ROUTELANE_API_KEY"`,
    `wire_api = "responses"`,
    `request_max_retries = 0`,
    `stream_max_retries = 0`,
    ``,
    `[analytics]`,
    `enabled = false`,
    ``,
    `[feedback]`,
    `enabled = false`,
    ``,
  ].join("\n");
}

async function codex(tier: string, prompt: string): Promise<ClientRun> {
  const workspace = createClientWorkspace("codex");
  try {
    writeFileSync(join(workspace.config, "config.toml"), codexConfig(gw.url, tier));
    // Codex's sandbox needs kernel features a container may lack; the temp repository is the boundary here.
    const args = ["exec", "--strict-config", "--sandbox", "danger-full-access", prompt];
    return await runClient([...(binary.command ?? []), ...args], workspace, { CODEX_HOME: workspace.config, ROUTELANE_API_KEY: key });
  } finally {
    workspace.remove();
  }
}

// Concurrent tests; each timeout includes the wait for one of runClient's few run slots.
describe.concurrent.skipIf(binary.skip !== undefined)("Codex (codex exec)", () => {
  for (const tier of TIERS) {
    test(`${tier}: a plain turn prints the simulated answer`, async () => {
      const tag = `codex-${tier}-plain`;
      const run = await codex(tier, `Hello ${tag} from the client test`);
      expect(run.exitCode, describeRun(run)).toBe(0);
      expect(run.stdout).toMatch(new RegExp(`Simulated reply from sim-\\S+: Hello ${tag} from the client test`));
      const { requests, apis } = readUpstreamExchange(gw, tag);
      expect(requests.length).toBe(1);
      for (const request of requests) expect((request.body as { model?: unknown }).model).toMatch(/^sim-/);
      for (const upstream of apis) expect(listTierApis(tier)).toContain(upstream);
    }, 120_000);

    test(`${tier}: a tool round trip — the model calls exec_command, Codex runs it and sends the output back`, async () => {
      const tag = `codex-${tier}-tool`;
      // The command's output (…-42) differs from its text, so finding it proves the command ran.
      const args = JSON.stringify({ cmd: "echo routelane-tool-$((6*7))" });
      const run = await codex(tier, `Run ${tag} [sim tool=exec_command args=${args}]`);
      expect(run.exitCode, describeRun(run)).toBe(0);
      // Codex puts a header before the command's output; the answer quotes the output.
      expect(run.stdout).toContain("Tool result received: routelane-tool-42");
      expect(run.stderr).toContain("routelane-tool-42");
      const { requests, apis, toolResults } = readUpstreamExchange(gw, tag);
      for (const upstream of apis) expect(listTierApis(tier)).toContain(upstream);
      expect(requests.length).toBe(2);
      expect(toolResults.at(-1)?.some((result) => result.includes("routelane-tool-42"))).toBe(true);
    }, 120_000);
  }

  test("normal: asked in plain words to run a back-ticked command, Codex runs it and prints the quoted output", async () => {
    const tag = "codex-plain-words";
    const run = await codex("normal", `Run \`echo ${tag}-$((6*7))\` and show me what it prints`);
    expect(run.exitCode, describeRun(run)).toBe(0);
    const { requests, toolResults } = readUpstreamExchange(gw, tag);
    expect(requests.length).toBe(2);
    expect(toolResults.at(-1)?.some((result) => result.includes(`${tag}-42`)), JSON.stringify(toolResults)).toBe(true);
    expect(run.stdout, describeRun(run)).toContain(`Tool result received: ${tag}-42`);
  }, 120_000);
});
