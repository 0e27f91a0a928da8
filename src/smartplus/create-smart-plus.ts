import { tmpdir } from "node:os";
import { join } from "node:path";
import type { Config, SmartPlusConfig } from "../config/schema.ts";
import type { Database } from "../db/client.ts";
import { isEffort } from "../routing/is-effort.ts";
import type { ResolvedProvider } from "../upstream/resolve-providers.ts";
import { createBlobStore, type BlobStore } from "./create-blob-store.ts";
import { createJobStore, type JobStore } from "./create-job-store.ts";
import { handleTurn, type TurnInput } from "./handle-turn.ts";
import type { RunJobDeps } from "./run-job.ts";
import { startWorker, type Worker } from "./start-worker.ts";

/** What the pipeline, the handoff routes and start-up see of Smart+. */
export interface SmartPlus {
  readonly store: JobStore;
  readonly blobs: BlobStore;
  settings(): SmartPlusConfig;
  /** A `smart-plus` chat turn, answered in the caller's format. */
  turn(input: TurnInput): Promise<Response>;
  /** Tells this process's worker that a job was queued. */
  wake(): void;
  /** Starts the worker loop (when the config asks for one and it is not running yet). */
  startWorker(): void;
  /** Stops the worker loop; a job under way is left for another worker to reclaim. */
  close(): Promise<void>;
}

export interface SmartPlusOptions {
  readonly database: Database;
  /** Where blobs live; fixed for the life of the process (a reload does not move them). */
  readonly blobDir: string;
  /** The config in use now (a reload replaces it). */
  config(): Config;
  providers(): Readonly<Record<string, ResolvedProvider>>;
  /** Names this process's worker in the job rows. */
  readonly workerId?: string;
  readonly onError?: (error: unknown) => void;
  /** Each model call a worker makes for a job (usage accounting). */
  readonly onModelCall?: RunJobDeps["onModelCall"];
}

/** Turn-side polling of a job's progress; a worker updates at each phase. */
const TURN_POLL_MS = 200;

function blobDirOf(blobDir: string): string {
  // An in-memory data dir (tests) has no folder: blobs go to a temp folder of this process.
  return blobDir.startsWith("memory:") ? join(tmpdir(), `routelane-smartplus-${process.pid}`) : blobDir;
}

export function createSmartPlus(options: SmartPlusOptions): SmartPlus {
  const store = createJobStore(options.database);
  const blobs = createBlobStore(blobDirOf(options.blobDir));
  const settings = () => options.config().smartPlus;
  let worker: Worker | null = null;
  const turnDeps = { store, config: options.config, pollMs: TURN_POLL_MS };
  return {
    store,
    blobs,
    settings,
    turn: (input) => handleTurn(turnDeps, input),
    wake: () => worker?.wake(),
    startWorker() {
      if (worker || !settings().worker) return;
      worker = startWorker({
        id: options.workerId ?? `${process.pid}-${crypto.randomUUID().slice(0, 8)}`,
        store,
        blobs,
        get settings() {
          return settings();
        },
        resolveModel(job) {
          const config = options.config();
          const model = config.models[job.model];
          const provider = model ? options.providers()[model.provider] : undefined;
          if (!model || !provider) return null;
          return { name: job.model, model, provider, effort: isEffort(job.effort) ? job.effort : "high" };
        },
        ...(options.onError ? { onError: options.onError } : {}),
        ...(options.onModelCall ? { onModelCall: options.onModelCall } : {}),
      });
    },
    async close() {
      const running = worker;
      worker = null;
      await running?.stop();
    },
  };
}
