import pkg from "../../package.json" with { type: "json" };

/**
 * `--help` (or `-h`) prints the program's usage, `--version` its name and version, and the caller
 * then exits 0 before it opens, starts or writes anything. True when one of them was answered.
 */
export function answerInfoFlags(argv: readonly string[], usage: string, print: (text: string) => void): boolean {
  // Only what comes before a `--` is an option of the program's own.
  const own = argv.includes("--") ? argv.slice(0, argv.indexOf("--")) : argv;
  if (own.includes("--version")) {
    print(`routelane ${pkg.version}`);
    return true;
  }
  if (own.includes("--help") || own.includes("-h")) {
    print(usage);
    return true;
  }
  return false;
}
