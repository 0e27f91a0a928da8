import type { SimDirective } from "./types.ts";

/**
 * A status fault with `times=N` fails only the first N requests with the same body for the same
 * model (`key`): a model that fails twice and then answers, as a client retrying it sees. Past N,
 * the fault's status (and its message and retry headers) is dropped; everything else stays.
 */
export function spendFaultTimes(fault: SimDirective, counts: Map<string, number>, key: string): SimDirective {
  if (fault.times === undefined || fault.status === undefined) return fault;
  const played = counts.get(key) ?? 0;
  if (played < fault.times) {
    counts.set(key, played + 1);
    return fault;
  }
  const { status: _status, message: _message, retryAfter: _after, retryAfterMs: _afterMs, ...rest } = fault;
  return rest;
}
