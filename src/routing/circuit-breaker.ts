export type BreakerState = "closed" | "open" | "half-open";

export interface BreakerOptions {
  /** Consecutive failures that open a model's breaker. */
  readonly failureThreshold: number;
  /** How long an open breaker refuses calls before one probe is let through, ms. */
  readonly coolDownMs: number;
  readonly now?: () => number;
  /** Called on every state change (metrics, logs). */
  readonly onChange?: (model: string, from: BreakerState, to: BreakerState) => void;
}

export interface BreakerSnapshot {
  readonly state: BreakerState;
  readonly consecutiveFailures: number;
  /** When an open breaker lets its probe through, ms since the epoch; null unless open. */
  readonly retryAt: number | null;
}

export interface CircuitBreaker {
  /** Whether a call to `model` may be made now. Claims the single probe of a cooled-down breaker. */
  tryAcquire(model: string): boolean;
  /** Whether `model` would be tried, without claiming the probe (for candidate lists, explain). */
  isAvailable(model: string): boolean;
  recordSuccess(model: string): void;
  recordFailure(model: string): void;
  state(model: string): BreakerState;
  /** Every model seen so far, for metrics. */
  snapshot(): Readonly<Record<string, BreakerSnapshot>>;
}

interface ModelState {
  state: BreakerState;
  failures: number;
  openedAt: number;
  /** When the half-open probe was handed out; null when none is out. */
  probeAt: number | null;
}

/**
 * A per-model circuit breaker: opens after `failureThreshold` consecutive failures, lets one probe
 * through after `coolDownMs`, closes on that probe's success and opens again on its failure.
 */
export function createCircuitBreaker(options: BreakerOptions): CircuitBreaker {
  const now = options.now ?? Date.now;
  const models = new Map<string, ModelState>();

  const entry = (model: string): ModelState => {
    let state = models.get(model);
    if (!state) models.set(model, (state = { state: "closed", failures: 0, openedAt: 0, probeAt: null }));
    return state;
  };
  const move = (model: string, s: ModelState, to: BreakerState) => {
    const from = s.state;
    s.state = to;
    if (from !== to) options.onChange?.(model, from, to);
  };
  // A probe whose outcome never came (client gone, caller bug) must not wedge the breaker: it
  // counts as out for one cool-down only.
  const probeOut = (s: ModelState) => s.probeAt !== null && now() - s.probeAt < options.coolDownMs;
  /** An open breaker past its cool-down is half-open; reading the state performs that move. */
  const current = (model: string, s: ModelState): BreakerState => {
    if (s.state === "open" && now() - s.openedAt >= options.coolDownMs) move(model, s, "half-open");
    return s.state;
  };

  return {
    tryAcquire(model) {
      const s = entry(model);
      const state = current(model, s);
      if (state === "closed") return true;
      if (state === "open" || probeOut(s)) return false;
      s.probeAt = now();
      return true;
    },
    isAvailable(model) {
      const s = models.get(model);
      if (!s) return true;
      const state = current(model, s);
      return state === "closed" || (state === "half-open" && !probeOut(s));
    },
    recordSuccess(model) {
      const s = entry(model);
      s.failures = 0;
      s.probeAt = null;
      move(model, s, "closed");
    },
    recordFailure(model) {
      const s = entry(model);
      s.failures++;
      const probeFailed = s.state === "half-open";
      s.probeAt = null;
      if (probeFailed || (s.state === "closed" && s.failures >= options.failureThreshold)) {
        s.openedAt = now();
        move(model, s, "open");
      }
    },
    state(model) {
      const s = models.get(model);
      return s ? current(model, s) : "closed";
    },
    snapshot() {
      const out: Record<string, BreakerSnapshot> = {};
      for (const [model, s] of models) {
        const state = current(model, s);
        out[model] = { state, consecutiveFailures: s.failures, retryAt: state === "open" ? s.openedAt + options.coolDownMs : null };
      }
      return out;
    },
  };
}
