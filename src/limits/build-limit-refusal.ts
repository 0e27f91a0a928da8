import type { Plan } from "../canonical/plans.ts";
import { type GatewayError, fail } from "../canonical/gateway-error.ts";
import { formatReset } from "./format-reset.ts";

export type LimitKind = "rpm" | "concurrency" | "monthly" | "key_rpm" | "key_spend";

export interface RefusalDetails {
  readonly kind: LimitKind;
  readonly plan: Plan;
  /** The limit that was hit (requests per minute, concurrent requests, tokens per month, or USD per month). */
  readonly limit: number;
  /** When trying again can succeed, ms from now. */
  readonly retryAfterMs: number;
  /** When a monthly cap resets (ms since epoch), as its message says; default: now + retryAfterMs. */
  readonly resetsAt?: number;
  /** The rpm limit and what is left of it, for the `x-ratelimit-*` headers; null when uncapped. */
  readonly rpm: { readonly limit: number; readonly remaining: number; readonly resetMs: number } | null;
}

const usd = (amount: number): string => `$${amount >= 0.01 ? amount.toFixed(2) : String(amount)}`;

function messageOf(kind: LimitKind, limit: number, plan: Plan, resetsAt: Date): string {
  switch (kind) {
    case "rpm":
      return `rate limit of ${limit} requests per minute for plan ${plan} exceeded`;
    case "concurrency":
      return `concurrency limit of ${limit} concurrent requests for plan ${plan} exceeded`;
    case "monthly":
      return `token limit of ${limit} tokens per month for plan ${plan} exceeded`;
    case "key_rpm":
      return `rate limit of ${limit} requests per minute for this key exceeded`;
    case "key_spend":
      return `monthly spend cap of ${usd(limit)} for this key reached; it resets at ${resetsAt.toISOString()}`;
    default: {
      const unknownKind: never = kind;
      throw new Error(`unknown limit ${String(unknownKind)}`);
    }
  }
}

/** The `x-ratelimit-*-requests` headers of a response. */
export function rateLimitHeaders(limit: number, remaining: number, resetMs: number): Record<string, string> {
  return {
    "x-ratelimit-limit-requests": String(limit),
    "x-ratelimit-remaining-requests": String(Math.max(0, remaining)),
    "x-ratelimit-reset-requests": formatReset(resetMs),
  };
}

/**
 * The 429 of a refused request: `rate_limit_error`, a message naming the limit and the plan, and
 * `retry-after` (whole seconds, at least 1) with `retry-after-ms`, which both official SDKs honour.
 * The monthly cap cannot clear within an SDK's retry budget, so it also says `x-should-retry: false`.
 */
export function buildLimitRefusal(details: RefusalDetails): GatewayError {
  const retryMs = Math.max(1, Math.ceil(details.retryAfterMs));
  const headers: Record<string, string> = {
    "retry-after": String(Math.max(1, Math.ceil(retryMs / 1000))),
    "retry-after-ms": String(retryMs),
    ...(details.rpm ? rateLimitHeaders(details.rpm.limit, details.rpm.remaining, details.rpm.resetMs) : {}),
  };
  // Monthly caps cannot clear within an SDK's retry budget.
  if (details.kind === "monthly" || details.kind === "key_spend") headers["x-should-retry"] = "false";
  return fail("RateLimited", messageOf(details.kind, details.limit, details.plan, new Date(details.resetsAt ?? Date.now() + retryMs)), { headers });
}
