import { buildLimitRefusal, rateLimitHeaders } from "./build-limit-refusal.ts";
import { RPM_WINDOW_MS, type Lease, type LimitDecision, type Limiter, type LimitSubject, type MonthlyTokensLoader } from "./limiter.ts";
import { monthWindow } from "./month-window.ts";
import { createRpmWindow, type RpmWindow } from "./create-rpm-window.ts";

export interface MemoryLimiterOptions {
  /** The month's recorded tokens of an account; absent → counters start at zero. */
  readonly loadMonthlyTokens?: MonthlyTokensLoader | undefined;
  readonly now?: () => number;
  /** After a failed load the month check is skipped (fail open) for this long, then retried. */
  readonly loadRetryMs?: number;
  readonly log?: (line: string) => void;
}

/** Per-account counters. */
interface AccountState {
  rpm: RpmWindow | null;
  active: number;
  monthStart: number;
  tokens: number;
  loaded: boolean;
  loading: Promise<void> | null;
  loadRetryAt: number;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const CONCURRENCY_RETRY_MS = 1000;

function newState(monthStart: number): AccountState {
  return { rpm: null, active: 0, monthStart, tokens: 0, loaded: false, loading: null, loadRetryAt: 0 };
}

/** The account's window for its current limit; a changed limit keeps the recent requests. */
function windowOf(state: AccountState, limit: number): RpmWindow {
  let window = state.rpm;
  if (!window || window.limit !== limit) state.rpm = window = createRpmWindow(limit, window?.times() ?? []);
  return window;
}

/**
 * The in-process backend: exact for one process, a few hash-map operations per request, no
 * allocation beyond the lease. Counts are not shared between processes (that is the Redis backend).
 */
export function createMemoryLimiter(options: MemoryLimiterOptions = {}): Limiter & { activeOf(accountId: string): number } {
  const now = options.now ?? Date.now;
  const loadRetryMs = options.loadRetryMs ?? 10_000;
  const log = options.log ?? ((line: string) => console.warn(line));
  const states = new Map<string, AccountState>();
  let month = monthWindow(now());

  function startLoad(subject: LimitSubject, state: AccountState, loader: MonthlyTokensLoader): Promise<void> {
    const monthStart = state.monthStart;
    const loading = loader(subject.accountId, new Date(monthStart)).then(
      (tokens) => {
        if (state.monthStart !== monthStart) return;
        state.tokens += tokens;
        state.loaded = true;
        state.loading = null;
      },
      (err: unknown) => {
        state.loading = null;
        state.loadRetryAt = now() + loadRetryMs;
        log(JSON.stringify({ level: "warn", msg: "monthly usage could not be loaded; monthly cap not enforced meanwhile", accountId: subject.accountId, error: err instanceof Error ? err.message : String(err) }));
      },
    );
    state.loading = loading;
    return loading;
  }

  function decide(subject: LimitSubject, state: AccountState, at: number): LimitDecision {
    const { limits, plan } = subject;
    const cap = limits.tokensPerMonth;
    if (cap !== null && state.loaded && state.tokens >= cap) {
      return { ok: false, error: buildLimitRefusal({ kind: "monthly", plan, limit: cap, retryAfterMs: month.end - at, rpm: rpmInfo(subject, state, at) }) };
    }
    const rpm = limits.requestsPerMinute;
    let inWindow = 0;
    let oldest = at;
    const window = rpm === null ? null : windowOf(state, rpm);
    if (window && rpm !== null) {
      inWindow = window.count(at);
      oldest = window.oldest;
      if (inWindow >= rpm) {
        const resetMs = oldest + RPM_WINDOW_MS - at;
        return { ok: false, error: buildLimitRefusal({ kind: "rpm", plan, limit: rpm, retryAfterMs: resetMs, rpm: { limit: rpm, remaining: 0, resetMs } }) };
      }
    }
    const concurrency = limits.concurrentRequests;
    if (concurrency !== null && state.active >= concurrency) {
      const rpmHeaders = rpm === null ? null : { limit: rpm, remaining: rpm - inWindow, resetMs: oldest + RPM_WINDOW_MS - at };
      return { ok: false, error: buildLimitRefusal({ kind: "concurrency", plan, limit: concurrency, retryAfterMs: CONCURRENCY_RETRY_MS, rpm: rpmHeaders }) };
    }
    state.active++;
    let headers = NO_HEADERS;
    if (window && rpm !== null) {
      window.add(at);
      headers = rateLimitHeaders(rpm, rpm - inWindow - 1, oldest + RPM_WINDOW_MS - at);
    }
    return { ok: true, lease: leaseOf(state, headers) };
  }

  function rpmInfo(subject: LimitSubject, state: AccountState, at: number) {
    const rpm = subject.limits.requestsPerMinute;
    if (rpm === null || !state.rpm || state.rpm.limit !== rpm) return null;
    const inWindow = state.rpm.count(at);
    return { limit: rpm, remaining: rpm - inWindow, resetMs: state.rpm.oldest + RPM_WINDOW_MS - at };
  }

  function leaseOf(state: AccountState, headers: Readonly<Record<string, string>>): Lease {
    let held = true;
    return {
      headers,
      release() {
        if (!held) return;
        held = false;
        state.active--;
      },
    };
  }

  return {
    acquire(subject) {
      const at = now();
      if (at >= month.end) month = monthWindow(at);
      let state = states.get(subject.accountId);
      if (!state) states.set(subject.accountId, (state = newState(month.start)));
      if (state.monthStart !== month.start) {
        state.monthStart = month.start;
        state.tokens = 0;
        state.loaded = false;
        state.loading = null;
        state.loadRetryAt = 0;
      }
      const loader = options.loadMonthlyTokens;
      if (subject.limits.tokensPerMonth !== null && !state.loaded) {
        if (!loader) state.loaded = true;
        else if (state.loading) {
          const s = state;
          return state.loading.then(() => decide(subject, s, now()));
        } else if (at >= state.loadRetryAt) {
          const s = state;
          return startLoad(subject, state, loader).then(() => decide(subject, s, now()));
        }
      }
      return decide(subject, state, at);
    },
    addTokens(accountId, tokens) {
      const state = states.get(accountId);
      // Before the first load the recorded usage (read at load) is the whole story.
      if (!state || tokens <= 0 || (!state.loaded && !state.loading)) return;
      if (state.monthStart !== month.start) return;
      state.tokens += tokens;
    },
    activeOf(accountId) {
      return states.get(accountId)?.active ?? 0;
    },
    async close() {
      states.clear();
    },
  };
}
