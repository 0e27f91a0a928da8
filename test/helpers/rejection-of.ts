/**
 * The error a promise rejects with. The SDKs return lazy promise subclasses that bun's
 * `expect(...).rejects` does not drive, so tests await them here.
 */
export async function rejectionOf(promise: PromiseLike<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the promise to reject, but it resolved");
}
