import type { Effort } from "../canonical/effort.ts";
import { GatewayError, exhausted, fail } from "../canonical/gateway-error.ts";
import { waitFor } from "../canonical/wait-for.ts";
import type { ModelConfig, RetryPolicy } from "../config/schema.ts";
import type { CircuitBreaker } from "../routing/circuit-breaker.ts";
import { isThinking } from "../routing/strip-foreign-thinking.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";
import { callModel, type ModelAnswer, type ModelCall } from "./call-model.ts";
import { retryDelay } from "./retry-delay.ts";
import { refusesThinkingHistory } from "./refuses-thinking-history.ts";

export interface Candidate {
  readonly name: string;
  readonly model: ModelConfig;
  readonly effort: Effort;
}

/** What an attempt tells whoever watches (breaker, metrics). */
export interface AttemptReport {
  readonly candidate: Candidate;
  readonly error?: GatewayError;
  /** The failed model is called again after a pause (the failure is not its final outcome). */
  readonly retrying?: boolean;
}

export interface Answered {
  readonly answer: ModelAnswer;
  readonly candidate: Candidate;
  readonly attempts: number;
  /** The answer came once the history's thinking was left out, an upstream having refused it as another model's. */
  readonly thinkingLeftOut: boolean;
}

/**
 * The call as it goes once an upstream has refused the history's thinking: a pinned model that
 * names no model, so every candidate is treated as another model than the one that wrote the
 * thinking, and gets the history without it (as on a known switch).
 */
const UNKNOWN_AUTHOR = "";

export interface FailoverOptions {
  readonly providers: Readonly<Record<string, ResolvedProvider>>;
  readonly clientHeaders: Headers;
  /** Per-model circuit breaker: an open one skips the model at no cost. */
  readonly breaker?: CircuitBreaker | undefined;
  /** Same-model retries after transient failures; absent = none. */
  readonly retries?: RetryPolicy | undefined;
  /** Waits before a retry; resolves false when the client left meanwhile. Default: a timer that stops when the client leaves. */
  readonly sleep?: (ms: number, client: Request) => Promise<boolean>;
  readonly now?: () => number;
  /** Opens a span per attempt (tracing): failed with the reason, ended either way. */
  readonly attemptSpan?: (candidate: Candidate, attempt: number) => { fail(message: string): void; end(): void };
  /** Called after every attempt, successful or not. */
  readonly onAttempt?: (report: AttemptReport) => void;
}

/** Waits `ms`, or less when the client leaves (false then). */
const sleepUnlessGone = (ms: number, client: Request): Promise<boolean> => waitFor(ms, client.signal);

/** When the upstream named no wait, the caller is asked to come back after this long. */
const DEFAULT_CLIENT_RETRY_MS = 2_000;

/** The wait a caller is given: the upstream's when it named one (`retry-after` in whole seconds, at least one). */
function retryAfterHeaders(last: GatewayError): Record<string, string> {
  const ms = Math.ceil(last.retryAfterMs ?? DEFAULT_CLIENT_RETRY_MS);
  return { "retry-after": String(Math.max(1, Math.ceil(ms / 1000))), "retry-after-ms": String(ms) };
}

/**
 * The error when no candidate could answer: the last reason. A transient one (every model busy,
 * failing or unreachable) tells the SDKs to retry after a pause; otherwise (credentials, an unknown
 * model, a malformed answer) a retry cannot help and they are told not to.
 */
function noCandidateAnswered(last: GatewayError, tried: number): GatewayError {
  const message = tried > 1 ? `all ${tried} candidate models failed; last: ${last.message}` : last.message;
  const headers = last.transient ? { ...last.headers, ...retryAfterHeaders(last), "x-should-retry": "true" } : { ...last.headers, "x-should-retry": "false" };
  return exhausted(last, message, headers);
}

/** Per request: how many retries are left, and until when one may begin. */
interface RetryBudget {
  left: number;
  readonly until: number;
}

/**
 * Tries the candidates in order until one answers: for a stream, until its first event is in hand;
 * otherwise, until its whole body is. A transient failure (429, 5xx, 529, connection, deadline) calls
 * the same model again after a back-off that honours the upstream's `retry-after`, while the
 * request's retry budget (attempts, and time since the first call) lasts; then the next model is
 * tried. The breaker sees each model's final outcome only. A failure that another model cannot
 * fix (a bad request, the client gone) ends the search at once, but for a refusal of the history's
 * thinking: with no pin, or a stale one, the gateway cannot know that another model wrote it, so
 * the same model is called once more without it. Nothing has reached the client before an answer
 * is returned.
 */
export async function callWithFailover(first: ModelCall, candidates: readonly Candidate[], options: FailoverOptions): Promise<Answered> {
  let call = first;
  const now = options.now ?? Date.now;
  const sleep = options.sleep ?? sleepUnlessGone;
  const policy = options.retries;
  const budget: RetryBudget = { left: policy?.attempts ?? 0, until: now() + (policy?.budgetMs ?? 0) };
  let last: GatewayError | undefined;
  let attempts = 0;
  const { breaker } = options;
  for (const candidate of candidates) {
    if (breaker && !breaker.tryAcquire(candidate.name)) continue;
    for (let retry = 0; ; retry++) {
      attempts++;
      const outcome = await attempt(call, candidate, attempts, options);
      if (!(outcome instanceof GatewayError)) {
        breaker?.recordSuccess(candidate.name);
        options.onAttempt?.({ candidate });
        return { answer: outcome, candidate, attempts, thinkingLeftOut: call !== first };
      }
      const error = outcome;
      const wait = policy && error.transient && budget.left > 0 ? retryDelay(policy, retry, error.retryAfterMs) : undefined;
      const retrying = wait !== undefined && now() + wait <= budget.until;
      if (retrying) {
        options.onAttempt?.({ candidate, error, retrying });
        budget.left--;
        if (!(await sleep(wait, call.client))) throw fail("ClientClosed", "client closed the request");
        continue;
      }
      if (call === first && refusesThinkingHistory(error) && hasThinking(call)) {
        options.onAttempt?.({ candidate, error, retrying: true });
        call = { ...call, pinnedModel: UNKNOWN_AUTHOR, foreignTurns: 0 };
        continue;
      }
      options.onAttempt?.({ candidate, error, retrying: false });
      // The model answered (the request was bad) or the client left: not the model's failure.
      if (error.retryable) breaker?.recordFailure(candidate.name);
      else if (error.status !== 499) breaker?.recordSuccess(candidate.name);
      if (!error.retryable) throw error;
      last = error;
      break;
    }
  }
  if (!last) {
    throw fail("NoModelAvailable", "every model of this tier is failing; try again shortly", { headers: { "retry-after": "5", "x-should-retry": "true" } });
  }
  throw noCandidateAnswered(last, attempts);
}

/** Whether the request's history holds thinking that leaving it out would change. */
function hasThinking(call: ModelCall): boolean {
  try {
    return call.canonical().value.messages.some((message) => message.content.some(isThinking));
  } catch {
    return false;
  }
}

/** One call of one model: its answer, or the GatewayError it failed with. */
async function attempt(call: ModelCall, candidate: Candidate, number: number, options: FailoverOptions): Promise<ModelAnswer | GatewayError> {
  const span = options.attemptSpan?.(candidate, number);
  try {
    const provider = options.providers[candidate.model.provider]!;
    return await callModel(call, candidate.name, candidate.model, candidate.effort, provider, options.clientHeaders);
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    span?.fail(`${error.status} ${error.type}`);
    return error;
  } finally {
    span?.end();
  }
}
