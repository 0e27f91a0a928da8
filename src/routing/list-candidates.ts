import type { WireFormat } from "../canonical/wire-format.ts";
import type { ModelConfig } from "../config/schema.ts";

/** What the request needs from a model. */
export interface ModelRequirements {
  readonly vision: boolean;
  readonly tools: boolean;
  /** Estimated prompt tokens. */
  readonly promptTokens: number;
  /** The output the client asked for, tokens (unset: no requirement). */
  readonly maxOutputTokens?: number | undefined;
  /** Only models callable with one of these APIs (unset: any). */
  readonly apis?: readonly WireFormat[] | undefined;
}

export interface Candidate {
  readonly name: string;
  readonly model: ModelConfig;
}

/** Why a model cannot serve a request, or null when it can. */
export function whyUnfit(model: ModelConfig, needs: ModelRequirements): string | null {
  if (needs.vision && !model.vision) return "vision";
  if (needs.tools && !model.tools) return "tools";
  if (needs.promptTokens > model.contextWindow) return "context window";
  if (needs.maxOutputTokens !== undefined && needs.maxOutputTokens > model.maxOutputTokens) return "output size";
  if (needs.apis && !model.apis.some((api) => needs.apis!.includes(api))) return "api";
  return null;
}

export interface ListCandidatesInput {
  /** The model the router chose; first when it qualifies. */
  readonly chosen: string;
  /** The tier's pool, in order. */
  readonly pool: readonly string[];
  readonly models: Readonly<Record<string, ModelConfig>>;
  readonly needs: ModelRequirements;
  /** The breaker's view (without claiming a probe); unset: every model is available. */
  readonly isAvailable?: (model: string) => boolean;
}

/**
 * The failover order: the chosen model, then the rest of the pool, keeping those that can serve
 * the request and whose breaker lets calls through. When every capable model's breaker is open,
 * the capable ones are returned anyway: trying beats refusing outright.
 */
export function listCandidates(input: ListCandidatesInput): Candidate[] {
  const { chosen, pool, models, needs, isAvailable } = input;
  // Loops, not a spread and two filters: this runs on every request, mostly over a pool of one or two.
  const capable: Candidate[] = [];
  const add = (name: string): void => {
    const model = models[name];
    if (model && whyUnfit(model, needs) === null) capable.push({ name, model });
  };
  add(chosen);
  for (let i = 0; i < pool.length; i++) if (pool[i] !== chosen) add(pool[i]!);
  if (!isAvailable) return capable;
  const available: Candidate[] = [];
  for (let i = 0; i < capable.length; i++) if (isAvailable(capable[i]!.name)) available.push(capable[i]!);
  return available.length > 0 ? available : capable;
}
