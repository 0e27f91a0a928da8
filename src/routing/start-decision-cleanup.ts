import { describeDbError } from "../db/sanitize-db-error.ts";
import type { DecisionStore } from "./create-decision-cache.ts";

export interface DecisionCleanup {
  readonly intervalMs: number;
  /** No round starts after this; resolves once the round under way, if any, has ended. */
  stop(): Promise<void>;
}

/**
 * Deletes the store's expired decisions every `intervalMs` until stopped. A failed round is logged
 * and the next one tries again; the timer never keeps the process alive, and one round runs at a
 * time (a slow database does not pile them up).
 */
export function startDecisionCleanup(
  store: Pick<DecisionStore, "deleteExpired">,
  intervalMs: number,
  onError: (err: unknown) => void = (err) => console.error(JSON.stringify({ level: "warn", msg: "decision cleanup failed", error: describeDbError(err) })),
): DecisionCleanup {
  let running: Promise<void> | undefined;
  const timer = setInterval(() => {
    running ??= store
      .deleteExpired(new Date())
      .then(() => {}, onError)
      .finally(() => (running = undefined));
  }, intervalMs);
  timer.unref?.();
  return {
    intervalMs,
    async stop() {
      clearInterval(timer);
      await running;
    },
  };
}
