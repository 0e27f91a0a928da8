import { Glob } from "bun";
import { dirname, join, normalize } from "node:path";

/**
 * What the architecture test holds the tree to, read from the source text alone (nothing is
 * imported or run): branches on a format name, imports that run up the layers, hand-built
 * errors, home-made JSON helpers, exports nothing else uses, and services built outside the
 * composition root. Each finding is `file: what`, without line numbers, so a list of them
 * survives edits elsewhere in a file.
 */
export interface ArchitectureFindings {
  readonly branches: readonly string[];
  readonly upward: readonly string[];
  readonly cycles: readonly string[];
  readonly gatewayError: readonly string[];
  readonly json: readonly string[];
  readonly testOnly: readonly string[];
  readonly wiring: readonly string[];
}

/**
 * The layers, lowest first: a file may import its own folder or a lower rank. The longest prefix
 * that matches a path gives its rank.
 */
const RANKS: readonly (readonly [prefix: string, rank: number, unit?: string])[] = [
  ["src/canonical/", 0],
  // Calls into the operating system that Bun has no API for.
  ["src/system/", 0],
  ["src/config/", 1],
  ["src/redis/", 1],
  ["src/cache/", 2],
  // One wire API's knowledge, the interface and what the APIs share.
  ["src/wire/", 2, "wire-shared"],
  ["src/wire/messages/", 3],
  ["src/wire/chat/", 3],
  ["src/wire/responses/", 3],
  // The one registry of the three APIs.
  ["src/wire/wire-apis.ts", 4, "wire-registry"],
  ["src/db/", 5],
  ["src/accounts/", 6],
  ["src/limits/", 7],
  ["src/routing/", 7],
  // Calling upstreams, format-blind.
  ["src/upstream/", 8],
  ["src/usage/", 9],
  ["src/smartplus/", 9],
  ["src/pipeline/", 10],
  ["src/ops/", 11],
  ["src/http/", 12],
  ["src/console/", 12],
  // The simulated upstream, the composition root, and the programs on top.
  ["src/sim/", 12],
  ["src/create-pipeline-services.ts", 13, "compose"],
  ["src/start-gateway.ts", 13, "compose"],
  ["src/bench/", 14],
  ["src/cli/", 15],
  ["src/main.ts", 15],
];

const FORMAT = "(?:messages|chat|responses)";
/** A branch on a format's name: a comparison, a case, a record keyed by format, a lookup by one. */
const BRANCH = new RegExp(
  [
    `(?:===|!==)\\s*"${FORMAT}"`,
    `"${FORMAT}"\\s*(?:===|!==)`,
    `case\\s+"${FORMAT}"\\s*:`,
    "Record<WireFormat\\b",
    `\\.includes\\("${FORMAT}"\\)`,
    "[A-Z_]{4,}\\[(?:[a-z]+\\.)?(?:format|api)\\]",
  ].join("|"),
  "g",
);
/** Programs that speak the APIs themselves, and the APIs' own folders, may name formats. */
const MAY_NAME_FORMATS = /^src\/(?:wire|sim|bench)\//;

/** A second name for a JSON object or its check, a copy of the check, or either handed on from another file. */
const JSON_HELPER =
  /^(?:export )?type \w+ = (?:Readonly<)?Record<string, unknown>;|isJsonObject as \w+|function is(?:Record|Object)\b|^export \{[^}]*\b(?:isJsonObject|JsonObject)\b[^}]*\} from/gm;

/** Stateful services: built once, at start-up, by the composition root. */
const SERVICE =
  /(?<!function )\b(?:createRedisLink|createRedisPinStore|createMemoryPinStore|createRouting|createLimiter|createUsageWriter|createResponseCache|createResponseHistory|resolveProviders|openDatabase)\(/g;
const MAY_BUILD_SERVICES = /^src\/(?:compose|bench|cli)\/|^src\/(?:start-gateway|create-pipeline-services)\.ts$/;

/** Names that stand for the vocabulary itself, exported for readers and tests alike. */
const VOCABULARY = new Set(["UNIFIED_STOP_REASONS", "EFFORTS", "TIERS", "WIRE_FORMATS"]);

const IMPORT = /(?:from|import)\s*\(?\s*"(\.{1,2}\/[^"]+)"/g;
const EXPORTED_VALUE = /^export (?:async )?(?:const|let|function\*?|class) (\w+)/gm;
const IDENTIFIER = /[A-Za-z_$][\w$]*/g;

/** The text with comments blanked (line breaks kept) and string contents left alone. */
function stripComments(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, (comment) => comment.replace(/[^\n]/g, " ")).replace(/^\s*\/\/.*$/gm, "");
}

/** The layer a file is in: its unit (a folder, or files that act as one) and its rank. */
function layerOf(file: string): { readonly unit: string; readonly rank: number } | undefined {
  let best: (typeof RANKS)[number] | undefined;
  for (const entry of RANKS) if (file.startsWith(entry[0]) && (!best || entry[0].length > best[0].length)) best = entry;
  return best && { unit: best[2] ?? best[0], rank: best[1] };
}

function resolveImport(from: string, spec: string, files: ReadonlySet<string>): string | undefined {
  const target = normalize(join(dirname(from), spec));
  if (files.has(target)) return target;
  for (const ext of [".ts", ".tsx", "/index.ts"]) if (files.has(target + ext)) return target + ext;
  return undefined;
}

export async function scanArchitecture(root: string): Promise<ArchitectureFindings> {
  const files = [...new Glob("src/**/*.{ts,tsx}").scanSync(root)].sort();
  const fileSet = new Set(files);
  const code = new Map<string, string>();
  for (const file of files) code.set(file, stripComments(await Bun.file(join(root, file)).text()));
  const text = (file: string): string => code.get(file)!;
  const hits = (re: RegExp, skip: (file: string) => boolean): string[] =>
    files.filter((f) => !skip(f)).flatMap((f) => [...text(f).matchAll(re)].map((m) => `${f}: ${m[0]}`));

  const imports = new Map<string, string[]>();
  for (const file of files) {
    const targets: string[] = [];
    for (const m of text(file).matchAll(IMPORT)) {
      const target = resolveImport(file, m[1]!, fileSet);
      if (target) targets.push(target);
    }
    imports.set(file, targets);
  }

  const upward: string[] = [];
  for (const [file, targets] of imports) {
    const from = layerOf(file);
    for (const target of targets) {
      const to = layerOf(target);
      if (from && to && from.unit !== to.unit && to.rank >= from.rank) upward.push(`${file} -> ${target}`);
    }
  }

  // Exported for a test alone: named in a test, and in no other production file.
  const entries = new Set(files.filter((f) => text(f).includes("import.meta.main")));
  const words = new Map<string, Set<string>>();
  for (const file of files) words.set(file, new Set(text(file).match(IDENTIFIER) ?? []));
  const testWords = new Set<string>();
  for (const file of new Glob("test/**/*.{ts,tsx}").scanSync(root)) for (const word of (await Bun.file(join(root, file)).text()).match(IDENTIFIER) ?? []) testWords.add(word);
  const testOnly: string[] = [];
  for (const file of files) {
    if (entries.has(file)) continue;
    for (const m of text(file).matchAll(EXPORTED_VALUE)) {
      const name = m[1]!;
      if (VOCABULARY.has(name) || !testWords.has(name)) continue;
      if (!files.some((other) => other !== file && words.get(other)!.has(name))) testOnly.push(`${file}: ${name}`);
    }
  }

  return {
    branches: hits(BRANCH, (f) => MAY_NAME_FORMATS.test(f)),
    upward: upward.sort(),
    cycles: findCycles(imports),
    gatewayError: hits(/new GatewayError\(/g, (f) => f === "src/canonical/gateway-error.ts"),
    json: hits(JSON_HELPER, (f) => f === "src/canonical/json-object.ts"),
    testOnly: testOnly.sort(),
    wiring: hits(SERVICE, (f) => MAY_BUILD_SERVICES.test(f)),
  };
}

/** Each import circle once, as the files on it from its smallest name round. */
function findCycles(imports: ReadonlyMap<string, readonly string[]>): string[] {
  const found = new Set<string>();
  const state = new Map<string, "open" | "done">();
  const path: string[] = [];
  const visit = (file: string): void => {
    state.set(file, "open");
    path.push(file);
    for (const next of imports.get(file) ?? []) {
      const seen = state.get(next);
      if (seen === "open") {
        const loop = path.slice(path.indexOf(next));
        const start = loop.indexOf([...loop].sort()[0]!);
        found.add([...loop.slice(start), ...loop.slice(0, start)].join(" -> "));
      } else if (seen === undefined) visit(next);
    }
    path.pop();
    state.set(file, "done");
  };
  for (const file of imports.keys()) if (!state.has(file)) visit(file);
  return [...found].sort();
}
