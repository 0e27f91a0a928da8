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

// pi (`pi -p`) against the default config through each of its three client APIs: every tier,
// whatever API its models speak upstream.
// smart-plus answers with the Smart+ job flow (test/smartplus/agents.test.ts covers the agents there).
const TIERS = Object.keys(DEFAULT_CONFIG.tiers).filter((tier) => tier !== "smart-plus");
const binary = findClientBinary("pi");
if (binary.skip) console.warn(`skipping pi: ${binary.skip}`);

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway({ recordSim: true });
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(() => gw.stop(), 30_000);

const APIS = [
  { api: "anthropic-messages", path: "" },
  { api: "openai-completions", path: "/v1" },
  { api: "openai-responses", path: "/v1" },
] as const;

/** A models.json with one provider per API, each offering the tiers as reasoning models. */
function modelsJson(baseUrl: string): string {
  const models = TIERS.map((id) => ({ id, reasoning: true }));
  const providers = Object.fromEntries(
    APIS.map(({ api, path }) => [`routelane-${api}`, { baseUrl: `${baseUrl}${path}`, api, apiKey: "ROUTELANE_API_KEY", models }]),
  );
  return JSON.stringify({ providers }, null, 2);
}

async function pi(api: string, tier: string, prompt: string): Promise<ClientRun> {
  const workspace = createClientWorkspace("pi");
  try {
    writeFileSync(join(workspace.config, "models.json"), modelsJson(gw.url));
    const args = ["-p", "--offline", "--no-session", "--provider", `routelane-${api}`, "--model", tier, prompt];
    return await runClient([...(binary.command ?? []), ...args], workspace, {
      PI_CODING_AGENT_DIR: workspace.config,
      PI_OFFLINE: "1",
      ROUTELANE_API_KEY: key,
    });
  } finally {
    workspace.remove();
  }
}

// Concurrent tests; each timeout includes the wait for one of runClient's few run slots.
describe.concurrent.skipIf(binary.skip !== undefined)("pi (pi -p)", () => {
  for (const { api } of APIS) {
    for (const tier of TIERS) {
      test(`${api} on ${tier}: a plain turn prints the simulated answer`, async () => {
        const tag = `pi-${api}-${tier}-plain`;
        const run = await pi(api, tier, `Hello ${tag} from the client test`);
        expect(run.exitCode, describeRun(run)).toBe(0);
        expect(run.stdout).toMatch(new RegExp(`Simulated reply from sim-\\S+: Hello ${tag} from the client test`));
        const { requests, apis } = readUpstreamExchange(gw, tag);
        expect(requests.length).toBe(1);
        for (const request of requests) expect((request.body as { model?: unknown }).model).toMatch(/^sim-/);
        for (const upstream of apis) expect(listTierApis(tier)).toContain(upstream);
      }, 120_000);

      test(`${api} on ${tier}: a tool round trip — the model calls bash, pi runs it and sends the output back`, async () => {
        const tag = `pi-${api}-${tier}-tool`;
        // The command's output (…-42) differs from its text, so finding it proves the command ran.
        const args = JSON.stringify({ command: "echo routelane-tool-$((6*7))" });
        const run = await pi(api, tier, `Run ${tag} [sim tool=bash args=${args}]`);
        expect(run.exitCode, describeRun(run)).toBe(0);
        expect(run.stdout).toContain("Tool result received: routelane-tool-42");
        const { requests, apis, toolResults } = readUpstreamExchange(gw, tag);
        for (const upstream of apis) expect(listTierApis(tier)).toContain(upstream);
        expect(requests.length).toBe(2);
        expect(toolResults.at(-1)?.some((result) => result.includes("routelane-tool-42"))).toBe(true);
      }, 120_000);
    }
  }

  test("anthropic-messages on normal: asked in plain words to run a back-ticked command, pi runs it and prints the quoted output", async () => {
    const tag = "pi-plain-words";
    const run = await pi("anthropic-messages", "normal", `Run \`echo ${tag}-$((6*7))\` and show me what it prints`);
    expect(run.exitCode, describeRun(run)).toBe(0);
    const { requests, toolResults } = readUpstreamExchange(gw, tag);
    expect(requests.length).toBe(2);
    expect(toolResults.at(-1)?.some((result) => result.includes(`${tag}-42`)), JSON.stringify(toolResults)).toBe(true);
    expect(run.stdout, describeRun(run)).toContain(`Tool result received: ${tag}-42`);
  }, 120_000);
});
