import type { RoutingConfig, RoutingRule } from "../config/schema.ts";
import type { TaskSignals } from "./extract-task-signals.ts";
import type { TextFeatures } from "./read-text-features.ts";

/** What a compiled rule tests besides the signals: text features and the pool's context size. */
export interface RuleContext {
  readonly signals: TaskSignals;
  readonly features: () => TextFeatures;
  /** Smallest context window among the tier's pool, tokens. */
  readonly smallestContext: number;
}

export interface CompiledRule {
  readonly rule: RoutingRule;
  /** The conditions over the request's shape (lengths, tools, images, depth, size): cheap. */
  structural(context: RuleContext): boolean;
  /** The conditions over the text (features, keywords, patterns). */
  textual(context: RuleContext): boolean;
  matches(context: RuleContext): boolean;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** One regex for all of a rule's keywords; word edges only where the keyword starts/ends with a word character. */
function compileKeywords(keywords: readonly string[]): RegExp {
  const alternatives = keywords.map((k) => {
    const body = escapeRegExp(k.toLowerCase()).replace(/\s+/g, "\\s+");
    return `${/^\w/.test(k) ? "\\b" : ""}${body}${/\w$/.test(k) ? "\\b" : ""}`;
  });
  return new RegExp(alternatives.join("|"), "i");
}

type Check = (context: RuleContext) => boolean;

function structuralChecks(rule: RoutingRule): Check[] {
  const w = rule.when;
  const checks: Check[] = [];
  if (w.minChars !== undefined) checks.push((c) => c.signals.textChars >= w.minChars!);
  if (w.maxChars !== undefined) checks.push((c) => c.signals.textChars <= w.maxChars!);
  if (w.tools !== undefined) checks.push((c) => c.signals.toolCount > 0 === w.tools);
  if (w.images !== undefined) checks.push((c) => c.signals.hasImages === w.images);
  if (w.minDepth !== undefined) checks.push((c) => c.signals.depth >= w.minDepth!);
  if (w.maxDepth !== undefined) checks.push((c) => c.signals.depth <= w.maxDepth!);
  if (w.minPromptTokens !== undefined) checks.push((c) => c.signals.promptTokens >= w.minPromptTokens!);
  if (w.maxPromptTokens !== undefined) checks.push((c) => c.signals.promptTokens <= w.maxPromptTokens!);
  if (w.minContextShare !== undefined) checks.push((c) => c.signals.promptTokens >= w.minContextShare! * c.smallestContext);
  return checks;
}

function textualChecks(rule: RoutingRule): Check[] {
  const w = rule.when;
  const checks: Check[] = [];
  if (w.code !== undefined) checks.push((c) => c.features().code === w.code);
  if (w.stackTrace !== undefined) checks.push((c) => c.features().stackTrace === w.stackTrace);
  if (w.diff !== undefined) checks.push((c) => c.features().diff === w.diff);
  if (w.keywords) {
    const re = compileKeywords(w.keywords);
    checks.push((c) => re.test(c.signals.text));
  }
  if (w.patterns) {
    const res = w.patterns.map((p) => new RegExp(p, "i"));
    checks.push((c) => res.some((re) => re.test(c.signals.text)));
  }
  return checks;
}

/** Compiles the configured rules once (regexes built at start-up, not per request). */
export function compileRoutingRules(routing: Pick<RoutingConfig, "rules">): readonly CompiledRule[] {
  return routing.rules.map((rule) => {
    const shape = structuralChecks(rule);
    const text = textualChecks(rule);
    const structural = (context: RuleContext) => shape.every((check) => check(context));
    const textual = (context: RuleContext) => text.every((check) => check(context));
    return { rule, structural, textual, matches: (context) => structural(context) && textual(context) };
  });
}
