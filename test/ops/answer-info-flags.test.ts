import { afterAll, describe, expect, test } from "bun:test";
import { mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pkg from "../../package.json" with { type: "json" };

const ROOT = join(import.meta.dir, "..", "..");
const work = mkdtempSync(join(tmpdir(), "routelane-info-"));
afterAll(() => rmSync(work, { recursive: true, force: true }));

/** Runs a program of the project from an empty folder, with an empty temp folder of its own. */
async function run(program: string, flag: string) {
  const cwd = mkdtempSync(join(work, "cwd-"));
  const temp = mkdtempSync(join(work, "tmp-"));
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined) env[name] = value;
  // The defaults a start would use: ./data in the empty folder, the standard port.
  for (const name of ["ROUTELANE_DATA_DIR", "DATABASE_URL", "PORT", "ROUTELANE_CONFIG"]) delete env[name];
  const child = Bun.spawn(["bun", join(ROOT, program), flag], { cwd, env: { ...env, TMPDIR: temp }, stdin: "ignore", stdout: "pipe", stderr: "pipe" });
  const [code, stdout, stderr] = await Promise.all([child.exited, new Response(child.stdout).text(), new Response(child.stderr).text()]);
  return { code, stdout, stderr, written: [...readdirSync(cwd), ...readdirSync(temp)] };
}

describe("every program answers --help and --version, and starts nothing", () => {
  const programs: [string, string][] = [
    ["src/main.ts", "Usage: routelane"],
    ["src/cli/admin.ts", "Usage: bun run admin"],
    ["src/cli/bench.ts", "bun run bench"],
    ["src/cli/smartplus.ts", "Usage: bun run cli smartplus"],
    ["src/ops/build-executable.ts", "Usage: bun run build"],
    ["src/sim/main.ts", "Usage: bun run sim"],
  ];
  for (const [program, usage] of programs) {
    test(`${program} --help prints its usage, writes nothing and exits 0`, async () => {
      const result = await run(program, "--help");
      expect(result).toMatchObject({ code: 0, stderr: "", written: [] });
      expect(result.stdout).toContain(usage);
    }, 30_000);

    test(`${program} --version prints the package's version`, async () => {
      expect(await run(program, "--version")).toEqual({ code: 0, stdout: `routelane ${pkg.version}\n`, stderr: "", written: [] });
    }, 30_000);
  }
});
