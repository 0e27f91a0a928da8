import type { BlobStore } from "./create-blob-store.ts";
import type { JobStore } from "./create-job-store.ts";
import type { RunJobDeps } from "./run-job.ts";

/** A job that kills its worker this many times is failed instead of claimed again. */
export const MAX_CLAIMS = 3;
/** Expired jobs are looked for at most this often. */
const SWEEP_INTERVAL_MS = 60_000;

export interface Worker {
  /** Look for a job now instead of at the next poll (an upload just queued one). */
  wake(): void;
  /** Stops claiming; a job under way is abandoned (its lease lapses and another worker takes it). */
  stop(): Promise<void>;
}

export interface WorkerOptions extends RunJobDeps {
  readonly id: string;
  readonly blobs: BlobStore;
  readonly store: JobStore;
  /** Reports a failure of the loop itself (database down); the loop carries on. */
  readonly onError?: (error: unknown) => void;
}

/**
 * The worker loop: claim a job, run it while renewing its lease, repeat; sleep `pollIntervalMs`
 * when the queue is empty. Expired jobs lose their blobs here too. Any number of loops, in any
 * number of instances, share the queue: claims go through SKIP LOCKED.
 */
export function startWorker(options: WorkerOptions): Worker {
  const { store, blobs, settings } = options;
  const stopping = new AbortController();
  let wakeUp: (() => void) | null = null;
  let lastSweep = 0;
  const sleep = (ms: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(done, ms);
      function done(): void {
        clearTimeout(timer);
        // Else every poll of an idle queue (one a second) would leave one on the signal for good.
        stopping.signal.removeEventListener("abort", done);
        wakeUp = null;
        resolve();
      }
      wakeUp = done;
      stopping.signal.addEventListener("abort", done, { once: true });
    });

  const sweep = async (): Promise<void> => {
    if (Date.now() - lastSweep < Math.min(SWEEP_INTERVAL_MS, settings.leaseTimeoutMs)) return;
    lastSweep = Date.now();
    await store.failAbandoned(MAX_CLAIMS);
    for (const id of await store.expireDue()) await blobs.remove(id);
  };

  const runClaimed = async (job: NonNullable<Awaited<ReturnType<JobStore["claim"]>>>): Promise<void> => {
    const lease = new AbortController();
    const abort = () => lease.abort();
    stopping.signal.addEventListener("abort", abort, { once: true });
    const heartbeat = setInterval(() => {
      store.renew(job.id, options.id, settings.leaseTimeoutMs).then(
        (held) => held || lease.abort(),
        () => {},
      );
    }, Math.max(250, Math.floor(settings.leaseTimeoutMs / 3)));
    try {
      // Loaded at the first claimed job: unpacking, patching and their archive code stay out of a gateway that runs none.
      const { runJob } = await import("./run-job.ts");
      await runJob(job, options.id, options, lease.signal);
    } finally {
      clearInterval(heartbeat);
      stopping.signal.removeEventListener("abort", abort);
    }
  };

  const loop = async (): Promise<void> => {
    while (!stopping.signal.aborted) {
      try {
        await sweep();
        const job = await store.claim(options.id, settings.leaseTimeoutMs, MAX_CLAIMS);
        if (job) {
          await runClaimed(job);
          continue;
        }
      } catch (error) {
        options.onError?.(error);
      }
      if (!stopping.signal.aborted) await sleep(settings.pollIntervalMs);
    }
  };
  const running = loop();
  return {
    wake: () => wakeUp?.(),
    async stop() {
      stopping.abort();
      await running;
    },
  };
}
