import { buildLimitRefusal, rateLimitHeaders } from "./build-limit-refusal.ts";
import { RPM_WINDOW_MS, type Lease, type LimitDecision, type Limiter, type LimitSubject, type MonthlySpendLoader, type MonthlyTokensLoader } from "./limiter.ts";
import { monthWindow } from "./month-window.ts";
import { createRpmWindow, type RpmWindow } from "./create-rpm-window.ts";

export interface MemoryLimiterOptions {
  /** The month's recorded tokens of an account; absent → counters start at zero. */
  readonly loadMonthlyTokens?: MonthlyTokensLoader | undefined;
  /** The month's recorded spend of a key; absent → counters start at zero. */
  readonly loadMonthlySpend?: MonthlySpendLoader | undefined;
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

/** Per-key counters, kept only for keys that have their own limits. */
interface KeyState {
  rpm: RpmWindow | null;
  monthStart: number;
  spend: number;
  loaded: boolean;
  loading: Promise<void> | null;
  loadRetryAt: number;
}

const NO_HEADERS: Readonly<Record<string, string>> = Object.freeze({});
const CONCURRENCY_RETRY_MS = 1000;

function newState(monthStart: number): AccountState {
  return { rpm: null, active: 0, monthStart, tokens: 0, loaded: false, loading: null, loadRetryAt: 0 };
}

/** The account's (or key's) window for its current limit; a changed limit keeps the recent requests. */
function windowOf(state: { rpm: RpmWindow | null }, limit: number): RpmWindow {
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
  const keyStates = new Map<string, KeyState>();
  let month = monthWindow(now());

  /** The key's counters when it has limits of its own, rolled over to this month. */
  function keyStateOf(subject: LimitSubject): KeyState | null {
    if (!subject.keyLimits || subject.keyId === undefined) return null;
    let state = keyStates.get(subject.keyId);
    if (!state) keyStates.set(subject.keyId, (state = { rpm: null, monthStart: month.start, spend: 0, loaded: false, loading: null, loadRetryAt: 0 }));
    if (state.monthStart !== month.start) Object.assign(state, { monthStart: month.start, spend: 0, loaded: false, loading: null, loadRetryAt: 0 });
    return state;
  }

  /** Starts (or joins) the load of the key's recorded spend; null when nothing needs waiting for. */
  function keySpendLoad(subject: LimitSubject, state: KeyState, at: number): Promise<void> | null {
    if (subject.keyLimits?.monthlySpendUsd == null || state.loaded) return null;
    const loader = options.loadMonthlySpend;
    if (!loader) {
      state.loaded = true;
      return null;
    }
    if (state.loading) return state.loading;
    if (at < state.loadRetryAt) return null;
    const monthStart = state.monthStart;
    state.loading = loader(subject.accountId, subject.keyId!, new Date(monthStart)).then(
      (usd) => {
        if (state.monthStart !== monthStart) return;
        state.spend += usd;
        state.loaded = true;
        state.loading = null;
      },
      (err: unknown) => {
        state.loading = null;
        state.loadRetryAt = now() + loadRetryMs;
        log(JSON.stringify({ level: "warn", msg: "monthly key spend could not be loaded; spend cap not enforced meanwhile", keyId: subject.keyId, error: err instanceof Error ? err.message : String(err) }));
      },
    );
    return state.loading;
  }

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

  function decide(subject: LimitSubject, state: AccountState, keyState: KeyState | null, at: number): LimitDecision {
    const { limits, plan } = subject;
    const cap = limits.tokensPerMonth;
    if (cap !== null && state.loaded && state.tokens >= cap) {
      return { ok: false, error: buildLimitRefusal({ kind: "monthly", plan, limit: cap, retryAfterMs: month.end - at, rpm: rpmInfo(subject, state, at) }) };
    }
    const spendCap = subject.keyLimits?.monthlySpendUsd ?? null;
    if (keyState && spendCap !== null && keyState.loaded && keyState.spend >= spendCap) {
      return { ok: false, error: buildLimitRefusal({ kind: "key_spend", plan, limit: spendCap, retryAfterMs: month.end - at, resetsAt: month.end, rpm: null }) };
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
    const keyRpm = subject.keyLimits?.requestsPerMinute ?? null;
    const keyWindow = keyState && keyRpm !== null ? windowOf(keyState, keyRpm) : null;
    let keyInWindow = 0;
    if (keyWindow && keyRpm !== null) {
      keyInWindow = keyWindow.count(at);
      if (keyInWindow >= keyRpm) {
        const resetMs = keyWindow.oldest + RPM_WINDOW_MS - at;
        return { ok: false, error: buildLimitRefusal({ kind: "key_rpm", plan, limit: keyRpm, retryAfterMs: resetMs, rpm: { limit: keyRpm, remaining: 0, resetMs } }) };
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
    if (keyWindow && keyRpm !== null) {
      keyWindow.add(at);
      // The headers tell of whichever window has less left.
      if (rpm === null || keyRpm - keyInWindow < rpm - inWindow) headers = rateLimitHeaders(keyRpm, keyRpm - keyInWindow - 1, keyWindow.oldest + RPM_WINDOW_MS - at);
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
      const keyState = keyStateOf(subject);
      const keyLoad = keyState ? keySpendLoad(subject, keyState, at) : null;
      const loader = options.loadMonthlyTokens;
      let accountLoad: Promise<void> | null = null;
      if (subject.limits.tokensPerMonth !== null && !state.loaded) {
        if (!loader) state.loaded = true;
        else if (state.loading) accountLoad = state.loading;
        else if (at >= state.loadRetryAt) accountLoad = startLoad(subject, state, loader);
      }
      if (accountLoad || keyLoad) {
        const s = state;
        return Promise.all([accountLoad, keyLoad]).then(() => decide(subject, s, keyState, now()));
      }
      return decide(subject, state, keyState, at);
    },
    addTokens(accountId, tokens) {
      const state = states.get(accountId);
      // Before the first load the recorded usage (read at load) is the whole story.
      if (!state || tokens <= 0 || (!state.loaded && !state.loading)) return;
      if (state.monthStart !== month.start) return;
      state.tokens += tokens;
    },
    addSpend(_accountId, keyId, usd) {
      const state = keyStates.get(keyId);
      // Before the first load the recorded usage (read at load) is the whole story.
      if (!state || !(usd > 0) || (!state.loaded && !state.loading)) return;
      if (state.monthStart !== month.start) return;
      state.spend += usd;
    },
    activeOf(accountId) {
      return states.get(accountId)?.active ?? 0;
    },
    async close() {
      states.clear();
      keyStates.clear();
    },
  };
}
