import type { Fault } from "../config/schema.ts";
import { DEFAULT_CONFIG } from "../config/default-config.ts";
import { routeRequest, type SimContext, type SimReceived } from "./route-request.ts";

export type { SimReceived } from "./route-request.ts";

export interface SimOptions {
  /** 0 = a free port (default). */
  port?: number;
  /** Default 127.0.0.1. */
  hostname?: string;
  /** Faults injected on every request for a model, keyed by upstream model id. */
  faults?: Record<string, Fault>;
  /** Keep every received request in `received` (default false). */
  record?: boolean;
}

export interface SimServer {
  /** e.g. http://127.0.0.1:41234, no trailing slash. */
  url: string;
  port: number;
  /** Filled only when `record` is on. */
  received: SimReceived[];
  stop(): Promise<void>;
}

/** Upstream ids of the built-in sim models: what `GET /v1/models` lists besides the fault keys. */
const DEFAULT_MODEL_IDS = Object.values(DEFAULT_CONFIG.models)
  .filter((model) => model.provider === "sim")
  .map((model) => model.upstreamId);

/** Starts the simulated upstream (Messages, Chat Completions, Responses) on a loopback port. */
export async function startSim(options: SimOptions = {}): Promise<SimServer> {
  const hostname = options.hostname ?? "127.0.0.1";
  const faults = options.faults ?? {};
  const received: SimReceived[] = [];
  const ctx: SimContext = {
    faults,
    faultCounts: new Map(),
    received: options.record ? received : null,
    modelIds: [...new Set([...DEFAULT_MODEL_IDS, ...Object.keys(faults)])],
  };
  const server = Bun.serve({
    port: options.port ?? 0,
    hostname,
    // Long enough for the delay fault and slow consumers; Bun's default (10 s) would cut them.
    idleTimeout: 255,
    development: false,
    fetch: (request) => routeRequest(request, ctx),
    error: () => Response.json({ error: { message: "Simulated upstream failed.", type: "server_error", param: null, code: null } }, { status: 500 }),
  });
  const port = server.port ?? 0;
  const host = hostname.includes(":") ? `[${hostname}]` : hostname;
  return {
    url: `http://${host}:${port}`,
    port,
    received,
    stop: async () => {
      await server.stop(true);
    },
  };
}
