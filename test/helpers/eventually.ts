/**
 * Reads `read` until `done` holds for its value (usage rows and last-use times are written in the
 * background, on timers): up to `attempts` reads, `intervalMs` apart. Returns the last value read;
 * the caller's assertions then say what was missing.
 */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, attempts = 400, intervalMs = 25): Promise<T> {
  let value = await read();
  for (let i = 1; i < attempts && !done(value); i++) {
    await Bun.sleep(intervalMs);
    value = await read();
  }
  return value;
}
