import type { Effort } from "../canonical/effort.ts";
import { GatewayError } from "../canonical/gateway-error.ts";
import type { ModelConfig } from "../config/schema.ts";
import type { CircuitBreaker } from "../upstream/circuit-breaker.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";
import { callModel, type ModelAnswer, type ModelCall } from "./call-model.ts";

export interface Candidate {
  readonly name: string;
  readonly model: ModelConfig;
  readonly effort: Effort;
}

/** What a failed attempt tells whoever watches (breaker, metrics). */
export interface AttemptReport {
  readonly candidate: Candidate;
  readonly error?: GatewayError;
}

export interface Answered {
  readonly answer: ModelAnswer;
  readonly candidate: Candidate;
  readonly attempts: number;
}

export interface FailoverOptions {
  readonly providers: Readonly<Record<string, ResolvedProvider>>;
  readonly clientHeaders: Headers;
  /** Per-model circuit breaker: an open one skips the model at no cost. */
  readonly breaker?: CircuitBreaker | undefined;
  /** Opens a span per attempt (tracing): failed with the reason, ended either way. */
  readonly attemptSpan?: (candidate: Candidate, attempt: number) => { fail(message: string): void; end(): void };
  /** Called after every attempt, successful or not. */
  readonly onAttempt?: (report: AttemptReport) => void;
}

/** The error when no candidate could answer: the last reason, and no point in the client retrying at once. */
function exhausted(last: GatewayError, tried: number): GatewayError {
  // An upstream's 429 is not the caller's plan limit: to the caller every model is busy.
  const [status, type] = last.status === 429 ? [529, "overloaded_error" as const] : [last.status, last.type];
  const message = tried > 1 ? `all ${tried} candidate models failed; last: ${last.message}` : last.message;
  return new GatewayError(status, type, message, { code: last.code, headers: { ...last.headers, "x-should-retry": "false" } });
}

/**
 * Tries the candidates in order until one answers: for a stream, until its first event is in hand;
 * otherwise, until its whole body is. A failure that another model cannot fix (a bad request, the
 * client gone) ends the search at once. Nothing has reached the client before an answer is returned.
 */
export async function callWithFailover(call: ModelCall, candidates: readonly Candidate[], options: FailoverOptions): Promise<Answered> {
  let last: GatewayError | undefined;
  let attempts = 0;
  const { breaker } = options;
  for (const candidate of candidates) {
    if (breaker && !breaker.tryAcquire(candidate.name)) continue;
    attempts++;
    const span = options.attemptSpan?.(candidate, attempts);
    try {
      const provider = options.providers[candidate.model.provider]!;
      const answer = await callModel(call, candidate.name, candidate.model, candidate.effort, provider, options.clientHeaders);
      breaker?.recordSuccess(candidate.name);
      options.onAttempt?.({ candidate });
      return { answer, candidate, attempts };
    } catch (error) {
      if (!(error instanceof GatewayError)) throw error;
      span?.fail(`${error.status} ${error.type}`);
      options.onAttempt?.({ candidate, error });
      // The model answered (the request was bad) or the client left: not the model's failure.
      if (error.retryable) breaker?.recordFailure(candidate.name);
      else if (error.status !== 499) breaker?.recordSuccess(candidate.name);
      if (!error.retryable) throw error;
      last = error;
    } finally {
      span?.end();
    }
  }
  if (!last) {
    throw new GatewayError(503, "overloaded_error", "every model of this tier is failing; try again shortly", {
      code: "no_model_available",
      headers: { "retry-after": "5" },
    });
  }
  throw exhausted(last, attempts);
}
