import type { Server } from "bun";
import { DEFAULT_CONFIG } from "../../src/config/default-config.ts";
import type { FileConfig } from "../../src/config/schema.ts";

export interface SlowUpstream {
  readonly server: Server<undefined>;
  /** Resolves when a stream has sent its first chunk and is holding. */
  readonly holding: Promise<void>;
  /** Resolves once `count` streams are held at the same time. */
  holdingAtLeast(count: number): Promise<void>;
  /** Lets every held stream send the rest. */
  release(): void;
  stop(): void;
}

const chunk = (delta: Record<string, unknown>, finish: string | null = null): string =>
  `data: ${JSON.stringify({ id: "chatcmpl-slow", object: "chat.completion.chunk", created: 1, model: "slow-1", choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`;

/**
 * A Chat Completions upstream whose streams send their first chunk, then hold until released:
 * a stream the test can catch in the middle.
 */
export function startSlowUpstream(): SlowUpstream {
  let released!: () => void;
  const gate = new Promise<void>((resolve) => (released = resolve));
  let held!: () => void;
  const holding = new Promise<void>((resolve) => (held = resolve));
  let holdingNow = 0;
  const waiters: Array<{ count: number; resolve: () => void }> = [];
  const heldOneMore = (): void => {
    holdingNow += 1;
    held();
    for (const waiter of waiters.filter((w) => holdingNow >= w.count)) {
      waiters.splice(waiters.indexOf(waiter), 1);
      waiter.resolve();
    }
  };
  const encoder = new TextEncoder();
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    // A stream may be held longer than Bun's default 10 s idle limit on a loaded machine.
    idleTimeout: 0,
    fetch() {
      // Held from the first chunk until released, or until the gateway lets go of it.
      let holdingThis = false;
      const letGo = (): void => {
        if (holdingThis) holdingNow -= 1;
        holdingThis = false;
      };
      let cancelled = false;
      const body = new ReadableStream<Uint8Array>({
        async start(controller) {
          controller.enqueue(encoder.encode(chunk({ role: "assistant", content: "first " })));
          holdingThis = true;
          heldOneMore();
          await gate;
          letGo();
          if (cancelled) return;
          for (const word of ["second ", "third"]) controller.enqueue(encoder.encode(chunk({ content: word })));
          controller.enqueue(encoder.encode(chunk({}, "stop")));
          controller.enqueue(encoder.encode(`data: ${JSON.stringify({ id: "chatcmpl-slow", object: "chat.completion.chunk", created: 1, model: "slow-1", choices: [], usage: { prompt_tokens: 3, completion_tokens: 3, total_tokens: 6 } })}\n\n`));
          controller.enqueue(encoder.encode("data: [DONE]\n\n"));
          controller.close();
        },
        cancel() {
          cancelled = true;
          letGo();
        },
      });
      return new Response(body, { headers: { "content-type": "text/event-stream" } });
    },
  });
  return {
    server,
    holding,
    holdingAtLeast: (count) => (holdingNow >= count ? Promise.resolve() : new Promise((resolve) => waiters.push({ count, resolve }))),
    release: () => released(),
    stop: () => void server.stop(true),
  };
}

/** The default config with the fast tier on the slow upstream (Chat Completions only). */
export function slowFastTier(baseUrl: string): FileConfig {
  const base = DEFAULT_CONFIG.models["sim-fast"]!;
  return {
    ...DEFAULT_CONFIG,
    providers: { ...DEFAULT_CONFIG.providers, slow: { kind: "openai-compatible", baseUrl } },
    models: { ...DEFAULT_CONFIG.models, "slow-chat": { ...base, provider: "slow", upstreamId: "slow-1", apis: ["chat"], faults: undefined } },
    tiers: { ...DEFAULT_CONFIG.tiers, fast: { ...DEFAULT_CONFIG.tiers.fast, models: ["slow-chat"] } },
  };
}
