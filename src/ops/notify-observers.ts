import type { RequestObserver } from "../canonical/request-record.ts";

/**
 * One observer that calls each of `observers` (read at call time, so parts added after start-up,
 * such as the usage writer, are included), each guarded: a failing consumer must not fail the
 * request or starve the others.
 */
export function notifyObservers(observers: readonly RequestObserver[]): RequestObserver {
  return (record) => {
    for (const observe of observers) {
      try {
        observe(record);
      } catch {
        // Observers promise not to throw; one that does loses this record, nothing else.
      }
    }
  };
}
