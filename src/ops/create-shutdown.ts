/** One step of the drain after in-flight work has ended: flush usage, caches, logs; close stores. */
export interface DrainHook {
  readonly name: string;
  run(): Promise<void>;
}

export interface ShutdownOptions {
  /** How long in-flight requests and streams may run on. */
  readonly deadlineMs: number;
  /** Stops accepting connections; in-flight ones go on. */
  stopAccepting(): Promise<void>;
  /** Resolves true when nothing is in flight, false when the deadline passed first. */
  waitForIdle(deadlineMs: number): Promise<boolean>;
  /** Closes whatever is still open once the deadline has passed. */
  forceClose(): Promise<void>;
  /** Where a failing hook or a missed deadline is reported. */
  report(message: string): void;
}

export interface Shutdown {
  /** True from the first call of `run`: `/readyz` answers 503 from then on. */
  readonly draining: boolean;
  /** Adds a flush (usage writer, caches); flushes run in the order added, before the close steps. */
  addDrainHook(hook: DrainHook): void;
  /** Adds a close step (connections, stores, the log last); run in the order added, after every flush. */
  addCloseStep(step: DrainHook): void;
  /** Stops accepting, waits for in-flight work up to the deadline, then runs every hook once. */
  run(): Promise<void>;
}

/**
 * Graceful shutdown as an ordered list of drain hooks, so each part (usage writer, caches, request
 * log, tracing, database) adds its own flush and start-up decides the order. A failing hook is
 * reported and the next one still runs: a lost cache flush must not cost the usage rows.
 */
export function createShutdown(options: ShutdownOptions): Shutdown {
  const hooks: DrainHook[] = [];
  const closeSteps: DrainHook[] = [];
  let draining = false;
  let running: Promise<void> | undefined;

  async function drain(): Promise<void> {
    await options.stopAccepting();
    const idle = await options.waitForIdle(options.deadlineMs);
    if (!idle) {
      options.report(`shutdown deadline of ${options.deadlineMs} ms passed with requests in flight; closing them`);
      await options.forceClose();
    }
    for (const hook of [...hooks, ...closeSteps]) {
      try {
        await hook.run();
      } catch (error) {
        options.report(`shutdown step ${hook.name} failed: ${error instanceof Error ? error.message : String(error)}`);
      }
    }
  }

  return {
    get draining() {
      return draining;
    },
    addDrainHook(hook) {
      hooks.push(hook);
    },
    addCloseStep(step) {
      closeSteps.push(step);
    },
    run() {
      draining = true;
      running ??= drain();
      return running;
    },
  };
}
