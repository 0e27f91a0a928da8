import { afterAll, describe, expect, test } from "bun:test";
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { type ArchitectureFindings, scanArchitecture } from "./helpers/scan-architecture.ts";

const found = await scanArchitecture(join(import.meta.dir, ".."));

/**
 * What the tree still does against its rules. The lists only shrink: a new finding fails the test,
 * and so does one that was fixed but is still listed.
 */
const ALLOWED: { readonly [K in keyof ArchitectureFindings]: readonly string[] } = {
  branches: [],
  upward: [
  ],
  cycles: [],
  gatewayError: [],
  json: [],
  testOnly: [
  ],
  wiring: [
  ],
};

const sorted = (list: readonly string[]): string[] => [...list].sort();

/** The roles every wire folder fills, each in a file of the same name (src/wire/wire-api.ts says what each is for). */
const WIRE_ROLES = [
  "api.ts",
  "shapes.ts",
  "schema.ts",
  "check-request.ts",
  "client-side.ts",
  "decode-request.ts",
  "decode-tools.ts",
  "encode-response.ts",
  "encode-stream.ts",
  "encode-error.ts",
  "encode-stream-error.ts",
  "upstream-side.ts",
  "encode-request.ts",
  "decode-response.ts",
  "decode-stream.ts",
  "set-effort.ts",
  "read-error-event.ts",
  "opens-stream.ts",
  "inspect-stream.ts",
  "map-stop-reason.ts",
  "map-usage.ts",
];

describe("architecture", () => {
  test("no branch on a format name outside the wire folders (the simulator and the bench speak the APIs themselves)", () => {
    expect(sorted(found.branches)).toEqual(sorted(ALLOWED.branches));
  });

  test("imports point down the layers", () => {
    expect(sorted(found.upward)).toEqual(sorted(ALLOWED.upward));
  });

  test("no import circles", () => {
    expect(found.cycles).toEqual([]);
  });

  test("GatewayError is built only by the error vocabulary", () => {
    expect(sorted(found.gatewayError)).toEqual(sorted(ALLOWED.gatewayError));
  });

  test("one JsonObject, one isJsonObject", () => {
    expect(sorted(found.json)).toEqual(sorted(ALLOWED.json));
  });

  test("no production export used only by tests", () => {
    expect(sorted(found.testOnly)).toEqual(sorted(ALLOWED.testOnly));
  });

  test("stateful services are built only by the composition root", () => {
    expect(sorted(found.wiring)).toEqual(sorted(ALLOWED.wiring));
  });

  test("each wire folder fills the same roles under the same file names", () => {
    const root = join(import.meta.dir, "..", "src", "wire");
    for (const api of ["messages", "chat", "responses"]) {
      expect({ api, missing: WIRE_ROLES.filter((role) => !existsSync(join(root, api, role))) }).toEqual({ api, missing: [] });
    }
  });
});

describe("the scan itself", () => {
  const root = mkdtempSync(join(tmpdir(), "routelane-arch-"));
  afterAll(() => rmSync(root, { recursive: true, force: true }));
  const write = (path: string, text: string): void => {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  };
  write(
    "src/pipeline/branchy.ts",
    [
      'import { helper } from "../ops/helper.ts";',
      'import { GatewayError } from "../canonical/gateway-error.ts";',
      "type Loose = Record<string, unknown>;",
      'export function pick(format: string, body: Loose): number { if (format === "chat") return helper(body); throw new GatewayError(500, "api_error", "x"); }',
      "// if (format === \"messages\") is only a comment",
    ].join("\n"),
  );
  write("src/ops/helper.ts", 'import { pick } from "../pipeline/branchy.ts";\nexport const helper = (v: unknown): number => (v ? 1 : pick("x", {}));\nexport const onlyForTests = 1;\n');
  write("src/ops/start.ts", 'import { createRouting } from "../routing/create-routing.ts";\nexport const routing = createRouting();\n');
  write("test/ops.test.ts", 'import { onlyForTests } from "../src/ops/helper.ts";\n');

  test("finds a branch, an upward import, a circle, a hand-built error, a JSON alias, a test-only export and a service built outside the root", async () => {
    const scan = await scanArchitecture(root);
    expect(scan.branches).toEqual(['src/pipeline/branchy.ts: === "chat"']);
    expect(scan.upward).toEqual(["src/pipeline/branchy.ts -> src/ops/helper.ts"]);
    expect(scan.cycles).toEqual(["src/ops/helper.ts -> src/pipeline/branchy.ts"]);
    expect(scan.gatewayError).toEqual(["src/pipeline/branchy.ts: new GatewayError("]);
    expect(scan.json).toEqual(["src/pipeline/branchy.ts: type Loose = Record<string, unknown>;"]);
    expect(scan.testOnly).toEqual(["src/ops/helper.ts: onlyForTests"]);
    expect(scan.wiring).toEqual(["src/ops/start.ts: createRouting("]);
  });
});
