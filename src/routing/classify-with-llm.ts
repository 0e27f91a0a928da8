import type { Tier } from "../canonical/tier.ts";
import type { Config } from "../config/schema.ts";
import { classifyTask, resolveClass, type Classification } from "./classify-task.ts";
import type { CompiledRule } from "./compile-routing-rules.ts";
import type { TaskSignals } from "./extract-task-signals.ts";

/**
 * Asks the fast tier's model for one class name; resolves null (or rejects) when it cannot answer
 * in time. Supplied by the pipeline, which owns upstream calls.
 */
export type AskClass = (prompt: string, deadlineMs: number) => Promise<string | null>;

const PROMPT_TEXT_CHARS = 2_000;

function buildClassPrompt(config: Config, signals: TaskSignals): string {
  const classes = Object.entries(config.routing.classes)
    .map(([name, c]) => `- ${name}: ${c.description}`)
    .join("\n");
  const shape = `tools offered: ${signals.toolCount}, images: ${signals.hasImages ? "yes" : "no"}, turn: ${signals.depth}`;
  return (
    `Classify the task below into exactly one class. Answer with the class name only.\n\nClasses:\n${classes}\n\n` +
    `Request shape: ${shape}\n\nTask:\n${signals.text.slice(0, PROMPT_TEXT_CHARS)}`
  );
}

/** The first class name the answer mentions, if any. */
function readClassAnswer(answer: string, classes: readonly string[]): string | null {
  const words = answer.toLowerCase().match(/[a-z][a-z0-9_-]*/g) ?? [];
  return words.find((word) => classes.includes(word)) ?? null;
}

function withDeadline<T>(promise: Promise<T>, ms: number): Promise<T | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeout = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  return Promise.race([promise.catch(() => null), timeout]).finally(() => clearTimeout(timer));
}

/**
 * The `llm` classifier: the fast tier's model names the class; model and effort follow from the
 * class. No answer, a late one or an unknown class → the rules decide.
 */
export async function classifyWithLlm(
  config: Config,
  rules: readonly CompiledRule[],
  tier: Tier,
  signals: TaskSignals,
  askClass: AskClass,
): Promise<Classification> {
  const deadlineMs = config.routing.classifier.llmDeadlineMs;
  const answer = await withDeadline(askClass(buildClassPrompt(config, signals), deadlineMs), deadlineMs);
  const taskClass = answer === null ? null : readClassAnswer(answer, Object.keys(config.routing.classes));
  if (taskClass === null) return classifyTask(config, rules, tier, signals);
  return resolveClass(config, tier, taskClass, "llm");
}
