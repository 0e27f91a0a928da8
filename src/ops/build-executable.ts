import { PGlite } from "@electric-sql/pglite";
import type { BunPlugin } from "bun";
import { createHash } from "node:crypto";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { basename, dirname, join, relative, resolve } from "node:path";
import { TEMPLATE_FILE } from "../db/pglite-thread/built-in-template.ts";
import { answerInfoFlags } from "./answer-info-flags.ts";

/**
 * `bun run build [--outfile PATH]`: one self-contained executable (`bun build --compile`).
 *
 * Three things are not found through imports and would be missing from the binary:
 * - PGlite loads its wasm and data files next to its own module; they are embedded under the same
 *   names so the paths it computes inside the binary resolve.
 * - PGlite's thread and the tokenizer's are started from script paths (`new Worker`), so each
 *   script is an entrypoint.
 * - The migrations are read from a folder at run time; their text is inlined into the binary and
 *   written to a per-build directory under the temp dir on start.
 *
 * It also embeds a new database's data dir, made here by the PGlite it embeds (`readBuiltInTemplate`):
 * a new data directory then starts from it instead of running initdb, which took a process to
 * about 1 GB of RSS for a moment, on a machine that may have no more.
 */

const ROOT = resolve(import.meta.dir, "..", "..");
const PGLITE_ASSETS = ["pglite.data", "pglite.wasm", "initdb.wasm"].map((name) => join(ROOT, "node_modules/@electric-sql/pglite/dist", name));
const MIGRATIONS = join(ROOT, "drizzle");
const WORKERS = [join(ROOT, "src", "db", "pglite-thread", "pglite-worker.ts"), join(ROOT, "src", "usage", "tokenizer-worker.ts")];
const FOLDER_EXPRESSION = 'join(import.meta.dir, "..", "..", "drizzle")';

function migrationFiles(): Record<string, string> {
  const files: Record<string, string> = { "meta/_journal.json": readFileSync(join(MIGRATIONS, "meta", "_journal.json"), "utf8") };
  for (const name of readdirSync(MIGRATIONS)) if (name.endsWith(".sql")) files[name] = readFileSync(join(MIGRATIONS, name), "utf8");
  return files;
}

/** Replaces the migrations folder of src/db/migrate.ts by one written from the inlined files. */
const inlineMigrations: BunPlugin = {
  name: "inline-migrations",
  setup(build) {
    build.onLoad({ filter: /[\\/]src[\\/]db[\\/]migrate\.ts$/ }, (args) => {
      const source = readFileSync(args.path, "utf8");
      if (!source.includes(FOLDER_EXPRESSION)) throw new Error(`${relative(ROOT, args.path)} no longer computes its folder as ${FOLDER_EXPRESSION}; update build-executable.ts`);
      const files = JSON.stringify(migrationFiles());
      const hash = createHash("sha256").update(files).digest("hex").slice(0, 12);
      const writer = `(() => {
  const files = ${files};
  const dir = join(__ops_tmpdir(), "routelane-migrations-${hash}");
  for (const [name, text] of Object.entries(files)) {
    __ops_mkdir(join(dir, name, ".."), { recursive: true });
    __ops_write(join(dir, name), text);
  }
  return dir;
})()`;
      const prelude = 'import { mkdirSync as __ops_mkdir, writeFileSync as __ops_write } from "node:fs";\nimport { tmpdir as __ops_tmpdir } from "node:os";\n';
      // A function, not the text itself: in a replacement string `$$` means `$`, and a migration has them.
      return { contents: prelude + source.replace(FOLDER_EXPRESSION, () => writer), loader: "ts" };
    });
  },
};

/** A database just after initdb, as a gzipped `dumpDataDir` tarball (about 4.6 MB). */
async function writeDataDirTemplate(path: string): Promise<void> {
  const database = await PGlite.create();
  try {
    await Bun.write(path, await database.dumpDataDir("gzip"));
  } finally {
    await database.close();
  }
}

export async function buildExecutable(outfile: string): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "routelane-build-"));
  try {
    const entry = join(work, "entry.ts");
    const template = join(work, TEMPLATE_FILE);
    await writeDataDirTemplate(template);
    const embeds = [...PGLITE_ASSETS, template].map((path) => `import ${JSON.stringify(path)} with { type: "file" };`).join("\n");
    writeFileSync(entry, `${embeds}\nimport ${JSON.stringify(join(ROOT, "src", "main.ts"))};\n`);
    // A thread's script is found next to the module that starts it; beside the entry, in the
    // binary, is where that module ends up.
    const workers = WORKERS.map((script) => {
      const worker = join(work, basename(script));
      writeFileSync(worker, `import ${JSON.stringify(script)};\n`);
      return worker;
    });
    mkdirSync(dirname(resolve(outfile)), { recursive: true });
    const result = await Bun.build({
      entrypoints: [entry, ...workers],
      compile: { outfile: resolve(outfile) },
      target: "bun",
      minify: true,
      naming: { asset: "[name].[ext]" },
      plugins: [inlineMigrations],
    });
    if (!result.success) throw new AggregateError(result.logs, "build failed");
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const USAGE = `Usage: bun run build [--outfile PATH]

Compiles the gateway, its migrations and the embedded PGlite into one executable (default
dist/routelane) that needs nothing else on the host; run it with --help for its own usage.`;

if (import.meta.main) {
  if (answerInfoFlags(process.argv.slice(2), USAGE, (text) => console.log(text))) process.exit(0);
  const at = process.argv.indexOf("--outfile");
  const outfile = at >= 0 ? process.argv[at + 1] : join(ROOT, "dist", "routelane");
  if (!outfile) {
    console.error(USAGE);
    process.exit(2);
  }
  await buildExecutable(outfile).catch((error: unknown) => {
    console.error(error instanceof AggregateError ? error.errors.map(String).join("\n") : String(error));
    process.exit(1);
  });
  console.log(`built ${outfile}`);
}
