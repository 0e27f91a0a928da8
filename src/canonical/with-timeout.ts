/** `promise`, or a rejection once `ms` have passed: a shared store that hangs costs a miss, not a stalled request. */
export function withTimeout<T>(promise: Promise<T>, ms: number, what = "redis"): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(`${what} did not answer within ${ms} ms`)), ms))),
  ]).finally(() => clearTimeout(timer));
}
