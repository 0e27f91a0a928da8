import type { TokenizerReply, TokenizerRequest } from "./tokenizer-messages.ts";

export interface TokenizerThread {
  /** The o200k_base tokens in `texts`, summed; rejects when the thread failed or stopped under the call. */
  count(texts: readonly string[]): Promise<number>;
  /** Whether the thread is up (it starts with the first count and stops when unused). */
  readonly running: boolean;
}

export interface TokenizerThreadOptions {
  /** The thread stops once no count has come for this long, ms (default 60 s). */
  readonly idleMs?: number;
  /** The worker script (tests give one that fails). */
  readonly workerUrl?: string;
  /** Called each time the thread has stopped, idle or failed. */
  readonly onStop?: () => void;
}

const IDLE_MS = 60_000;
const WORKER_URL = new URL("./tokenizer-worker.ts", import.meta.url).href;

interface Running {
  readonly worker: Worker;
  readonly pending: Map<number, { readonly resolve: (tokens: number) => void; readonly reject: (error: Error) => void }>;
  idle: ReturnType<typeof setTimeout> | undefined;
}

/**
 * The local tokenizer (`tokenizer-worker.ts`) on a thread of its own, started by the first count
 * and stopped after `idleMs` without one. A gateway needs it only when an upstream cannot count
 * (`/v1/messages/count_tokens` on a Chat-only model); its tables take about 0.3 s to load and hold
 * 45-65 MB, which go with the thread. On the serving thread they stayed for the process's life (the
 * gateway under load peaked 40-50 MB higher after one such count) and a count of a 1 MB
 * conversation stalled every request in flight for 27-42 ms. The thread keeps the process alive
 * only while a count is waiting.
 */
export function createTokenizerThread(options: TokenizerThreadOptions = {}): TokenizerThread {
  const idleMs = options.idleMs ?? IDLE_MS;
  const url = options.workerUrl ?? WORKER_URL;
  let current: Running | undefined;
  let nextId = 1;

  function stop(running: Running, error: Error): void {
    if (current !== running) return;
    current = undefined;
    clearTimeout(running.idle);
    for (const call of running.pending.values()) call.reject(error);
    running.pending.clear();
    running.worker.terminate();
    options.onStop?.();
  }

  function start(): Running {
    const worker = new Worker(url);
    worker.unref();
    const running: Running = { worker, pending: new Map(), idle: undefined };
    worker.addEventListener("message", (event: MessageEvent<TokenizerReply>) => {
      const reply = event.data;
      const call = running.pending.get(reply.id);
      if (!call) return;
      running.pending.delete(reply.id);
      if ("error" in reply) call.reject(new Error(`the tokenizer failed: ${reply.error}`));
      else call.resolve(reply.tokens);
      if (running.pending.size > 0) return;
      worker.unref();
      running.idle = setTimeout(() => stop(running, new Error("the tokenizer thread stopped")), idleMs);
      running.idle.unref();
    });
    worker.addEventListener("error", (event: ErrorEvent) => stop(running, new Error(`the tokenizer thread failed: ${event.message}`)));
    worker.addEventListener("close", () => stop(running, new Error("the tokenizer thread stopped")));
    return running;
  }

  return {
    count(texts) {
      const running = (current ??= start());
      clearTimeout(running.idle);
      running.idle = undefined;
      const id = nextId++;
      return new Promise<number>((resolve, reject) => {
        if (running.pending.size === 0) running.worker.ref();
        running.pending.set(id, { resolve, reject });
        const request: TokenizerRequest = { id, texts };
        running.worker.postMessage(request);
      });
    },
    get running() {
      return current !== undefined;
    },
  };
}
