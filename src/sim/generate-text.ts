const FILLER = (
  "the quick answer is ready and it follows from the request with a short explanation of each step " +
  "so the result stays clear simple and easy to check against the original question"
).split(" ");

const PROMPT_WORDS = 8;

/** The first words of the prompt, whitespace-normalised. */
export function firstWords(text: string, count: number): string[] {
  const words: string[] = [];
  for (const word of text.split(/\s+/)) {
    if (word === "") continue;
    words.push(word);
    if (words.length === count) break;
  }
  return words;
}

/**
 * The reply text: `Simulated reply from <model>: <first prompt words> <filler…>`, exactly
 * `wordCount` words (default 20–40, picked from the seed), so the same request always reads the same.
 */
export function generateText(model: string, prompt: string, seed: bigint, wordCount: number | undefined): string {
  const count = wordCount ?? 20 + Number(seed % 21n);
  const words = ["Simulated", "reply", "from", `${model}:`, ...firstWords(prompt, PROMPT_WORDS)];
  const offset = Number(seed % BigInt(FILLER.length));
  for (let i = 0; words.length < count; i++) words.push(FILLER[(offset + i) % FILLER.length] ?? "and");
  return words.slice(0, count).join(" ");
}

/** The reasoning text (Anthropic thinking, Responses summary), short and deterministic. */
export function generateReasoning(prompt: string): string {
  const topic = firstWords(prompt, 6).join(" ");
  return topic === ""
    ? "Considering the request step by step before answering."
    : `Considering the request about "${topic}" step by step before answering.`;
}
