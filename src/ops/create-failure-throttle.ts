import { dropOldest, trimmedSize } from "../canonical/drop-oldest.ts";
export interface FailureThrottle {
  /** ms until `address` may try again; 0 when it may now. */
  blockedFor(address: string): number;
  /** Counts a failed attempt from `address`. */
  failed(address: string): void;
}

export interface FailureThrottleOptions {
  /** Failures allowed per address within the window; the next attempt is refused. */
  readonly maxFailures: number;
  readonly windowMs: number;
  /** Addresses remembered at most; the oldest are forgotten first, so memory stays bounded. */
  readonly maxAddresses?: number;
  readonly now?: () => number;
}

interface Window {
  start: number;
  failures: number;
}

/**
 * Counts failed attempts per client address in fixed windows: past `maxFailures` in one window,
 * that address is refused until the window ends. In process: each instance counts its own.
 */
export function createFailureThrottle(options: FailureThrottleOptions): FailureThrottle {
  const now = options.now ?? Date.now;
  const maxAddresses = options.maxAddresses ?? 10_000;
  const windows = new Map<string, Window>();

  const current = (address: string, at: number): Window | undefined => {
    const window = windows.get(address);
    if (window && at - window.start >= options.windowMs) {
      windows.delete(address);
      return undefined;
    }
    return window;
  };

  return {
    blockedFor(address) {
      const at = now();
      const window = current(address, at);
      if (!window || window.failures < options.maxFailures) return 0;
      return window.start + options.windowMs - at;
    },
    failed(address) {
      const at = now();
      const window = current(address, at);
      if (window) {
        window.failures++;
        return;
      }
      // Room for the one added next.
      if (windows.size >= maxAddresses) dropOldest(windows, trimmedSize(maxAddresses - 1));
      windows.set(address, { start: at, failures: 1 });
    },
  };
}
