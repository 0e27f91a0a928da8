import type { FileConfig, ModelConfig, RoutingConfig } from "./schema.ts";

const LISTED_CONTEXT = 1_048_576;
const LISTED_OUTPUT = 131_072;

const simModel = (upstreamId: string, overrides: Partial<ModelConfig>): ModelConfig => ({
  provider: "sim",
  upstreamId,
  apis: ["messages", "chat", "responses"],
  contextWindow: LISTED_CONTEXT,
  maxOutputTokens: LISTED_OUTPUT,
  vision: true,
  tools: true,
  efforts: ["off", "low", "medium", "high", "max"],
  thinking: "adaptive",
  prices: { input: 1, output: 5, cacheRead: 0.1, cacheWrite: 1.25 },
  ...overrides,
});

/**
 * Routing defaults: rules that read the newest user text and the shape of the request. Effort per
 * class and tier; the tier's pool order decides the model unless a class prefers another.
 */
export const DEFAULT_ROUTING: RoutingConfig = {
  classifier: { kind: "rules", llmDeadlineMs: 400 },
  scanChars: 8192,
  classes: {
    chore: {
      description: "Titles, summaries, renames, commit messages: short chores.",
      effort: { fast: "off", normal: "low", smart: "low", "smart-plus": "medium" },
    },
    question: {
      description: "A short question without code.",
      effort: { fast: "off", normal: "low", smart: "medium", "smart-plus": "high" },
    },
    coding: {
      description: "Writing or changing code.",
      effort: { fast: "low", normal: "medium", smart: "high", "smart-plus": "max" },
    },
    debugging: {
      description: "Errors, stack traces, failing tests.",
      effort: { fast: "low", normal: "high", smart: "high", "smart-plus": "max" },
    },
    planning: {
      description: "Planning, design and architecture.",
      effort: { fast: "low", normal: "high", smart: "max", "smart-plus": "max" },
    },
    "long-context": {
      description: "A prompt that fills much of the context window.",
      effort: { fast: "off", normal: "medium", smart: "high", "smart-plus": "max" },
    },
  },
  rules: [
    {
      name: "title-or-summary",
      class: "chore",
      when: {
        maxChars: 1200,
        keywords: ["title", "summarize", "summarise", "summary", "commit message", "rename", "fix the typo", "tl;dr", "one line", "one sentence"],
        stackTrace: false,
      },
    },
    { name: "large-prompt", class: "long-context", when: { minContextShare: 0.5 } },
    { name: "stack-trace", class: "debugging", when: { stackTrace: true } },
    {
      name: "debugging-words",
      class: "debugging",
      when: {
        keywords: ["error", "bug", "crash", "crashes", "exception", "traceback", "debug", "failing", "fails", "broken", "not working", "doesn't work", "regression", "segfault"],
      },
    },
    {
      name: "planning-words",
      class: "planning",
      when: {
        minChars: 40,
        keywords: ["plan", "design", "architecture", "architect", "refactor", "trade-off", "tradeoff", "tradeoffs", "strategy", "roadmap", "migration", "rewrite"],
      },
    },
    { name: "diff", class: "coding", when: { diff: true } },
    { name: "code", class: "coding", when: { code: true } },
    { name: "short-question", class: "question", when: { maxChars: 280, tools: false, images: false, maxDepth: 1 } },
  ],
  maxEffort: { fast: "medium", normal: "high", smart: "max", "smart-plus": "max" },
  decisionCache: { ttlMs: 86_400_000, lruSize: 10_000, cleanupIntervalMs: 600_000 },
  conversations: { pinTtlMs: 3_600_000, maxPins: 100_000 },
  escalation: {
    enabled: true,
    strugglePatterns: [
      "\\b[1-9]\\d* (tests? )?fail(ed|ing|ures?)?\\b",
      "(^|\\n)(--- )?FAIL(ED)?\\b",
      "Traceback \\(most recent call last\\)",
      "\\berror( [A-Z]+\\d+|\\[E\\d+\\])?:",
      "\\bpanicked at\\b",
      "\\bexit (code|status) [1-9]",
      "command not found",
      "No such file or directory",
      "(string|text) to replace (was )?not found",
      "old_string .*not (found|unique)",
      "(patch|hunk) .*(failed|does not apply)",
      "\\b(SyntaxError|TypeError|ReferenceError|NameError|AttributeError|ImportError|ModuleNotFoundError)\\b",
    ],
    successPatterns: [
      "\\b[1-9]\\d* (tests? )?pass(ed|ing)?\\b",
      "\\ball tests pass(ed)?\\b",
      "has been updated successfully",
      "\\bbuild succeeded\\b",
      "\\b0 (tests? )?failed\\b",
    ],
    toolErrors: true,
    repeatedCalls: true,
    maxSteps: 2,
  },
  breaker: { failureThreshold: 5, coolDownMs: 30_000 },
};

/**
 * The built-in configuration: every tier routes to simulated models served by the in-process
 * simulated upstream, so a fresh checkout runs offline with no provider key.
 */
export const DEFAULT_CONFIG: FileConfig = {
  providers: { sim: { kind: "sim" } },
  models: {
    // Each simulated model speaks one upstream API, so that the first request of a new user
    // already crosses formats (a Messages client on `fast`, a Chat client on `normal`).
    "sim-fast": simModel("sim-fast", {
      apis: ["chat"],
      efforts: ["off", "low", "medium", "high"],
      thinking: "manual",
      prices: { input: 0.25, output: 1.25, cacheRead: 0.025, cacheWrite: 0.3 },
    }),
    "sim-normal": simModel("sim-normal", { apis: ["messages"] }),
    "sim-normal-b": simModel("sim-normal-b", { apis: ["responses"] }),
    "sim-smart": simModel("sim-smart", { apis: ["responses"], prices: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 } }),
    "sim-smart-b": simModel("sim-smart-b", { apis: ["messages"], prices: { input: 5, output: 25, cacheRead: 0.5, cacheWrite: 6.25 } }),
    "sim-max": simModel("sim-max", { apis: ["messages"], prices: { input: 15, output: 75, cacheRead: 1.5, cacheWrite: 18.75 } }),
  },
  tiers: {
    fast: {
      displayName: "Fast",
      description: "Quick answers for small, well-defined tasks: titles, summaries, short edits.",
      ownedBy: "routelane",
      models: ["sim-fast"],
      defaultEffort: "off",
      contextWindow: LISTED_CONTEXT,
      maxOutputTokens: LISTED_OUTPUT,
    },
    normal: {
      displayName: "Normal",
      description: "Everyday coding and chat at a balanced cost.",
      ownedBy: "routelane",
      models: ["sim-normal", "sim-normal-b"],
      defaultEffort: "medium",
      contextWindow: LISTED_CONTEXT,
      maxOutputTokens: LISTED_OUTPUT,
    },
    smart: {
      displayName: "Smart",
      description: "Hard problems: debugging, design and multi-step agent work.",
      ownedBy: "routelane",
      models: ["sim-smart", "sim-smart-b"],
      defaultEffort: "high",
      contextWindow: LISTED_CONTEXT,
      maxOutputTokens: LISTED_OUTPUT,
    },
    "smart-plus": {
      displayName: "Smart+",
      description: "The heaviest model with the whole repository in context; answers with a patch.",
      ownedBy: "routelane",
      models: ["sim-max"],
      defaultEffort: "max",
      contextWindow: LISTED_CONTEXT,
      maxOutputTokens: LISTED_OUTPUT,
    },
  },
  routing: DEFAULT_ROUTING,
};
