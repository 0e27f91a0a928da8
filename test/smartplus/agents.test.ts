import { afterAll, beforeAll, describe, expect, test } from "bun:test";
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { createClientWorkspace } from "../clients/create-client-workspace.ts";
import { findClientBinary } from "../clients/find-client-binary.ts";
import { describeRun, runClient } from "../clients/run-client.ts";
import { startTestGateway, type TestGateway } from "../helpers/start-test-gateway.ts";

// Real agents on smart-plus: their first turn shows the Smart+ pack command, and nothing else.
const claude = findClientBinary("claude");
const codex = findClientBinary("codex");

let gw: TestGateway;
let key: string;

beforeAll(async () => {
  gw = await startTestGateway();
  ({ key } = await gw.account("Enterprise"));
}, 60_000);
afterAll(() => gw.stop(), 30_000);

describe.concurrent("agents on smart-plus", () => {
  test.skipIf(claude.skip !== undefined)("Claude Code prints the pack command of a new job", async () => {
    const workspace = createClientWorkspace("claude");
    try {
      const run = await runClient([...(claude.command ?? []), "-p", "Add a CHANGELOG entry", "--model", "smart-plus"], workspace, {
        ANTHROPIC_BASE_URL: gw.url,
        ANTHROPIC_API_KEY: key,
        CLAUDE_CONFIG_DIR: workspace.config,
        CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: "1",
        DISABLE_AUTOUPDATER: "1",
        DISABLE_TELEMETRY: "1",
        DISABLE_ERROR_REPORTING: "1",
        CLAUDE_CODE_MAX_RETRIES: "1",
        ANTHROPIC_DEFAULT_HAIKU_MODEL: "fast",
      });
      expect(run.exitCode, describeRun(run)).toBe(0);
      expect(run.stdout).toContain("Smart+ works on a copy of your repository");
      expect(run.stdout).toMatch(/\/v1\/handoff\/job_[0-9A-Za-z]+\/upload/);
      expect(run.stdout).not.toContain(key);
    } finally {
      workspace.remove();
    }
  }, 120_000);

  test.skipIf(codex.skip !== undefined)("Codex prints the pack command of a new job", async () => {
    const workspace = createClientWorkspace("codex");
    try {
      const config = [
        `model = "smart-plus"`,
        `model_provider = "routelane"`,
        `check_for_update_on_startup = false`,
        `[model_providers.routelane]`,
        `name = "Routelane"`,
        `base_url = ${JSON.stringify(`${gw.url}/v1`)}`,
        `env_key = "ROUTELANE_API_KEY"`,
        `wire_api = "responses"`,
        `request_max_retries = 0`,
        `stream_max_retries = 0`,
        `[analytics]`,
        `enabled = false`,
        `[feedback]`,
        `enabled = false`,
      ].join("\n");
      writeFileSync(join(workspace.config, "config.toml"), `${config}\n`);
      const args = ["exec", "--strict-config", "--sandbox", "danger-full-access", "Add a CHANGELOG entry"];
      const run = await runClient([...(codex.command ?? []), ...args], workspace, { CODEX_HOME: workspace.config, ROUTELANE_API_KEY: key });
      expect(run.exitCode, describeRun(run)).toBe(0);
      expect(run.stdout).toMatch(/\/v1\/handoff\/job_[0-9A-Za-z]+\/upload/);
      expect(run.stdout).not.toContain(key);
    } finally {
      workspace.remove();
    }
  }, 120_000);
});
