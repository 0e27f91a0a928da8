import { runtimeTuning } from "../ops/size-process.ts";
import { BENCH_HOST } from "./spawn-gateway.ts";

/**
 * The bare proxy's environment: the gateway's runtime tuning (collector, allocator purge delay)
 * included, so the floor is the same runtime without the gateway, not a differently tuned one.
 */
export function bareProxyEnv(env: Readonly<Record<string, string | undefined>>, port: number, upstream: string): Record<string, string | undefined> {
  return { ...env, ...runtimeTuning(env), BARE_PORT: String(port), BARE_HOST: BENCH_HOST, BARE_UPSTREAM: upstream };
}
