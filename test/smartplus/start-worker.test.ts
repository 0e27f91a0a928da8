import { afterEach, describe, expect, test } from "bun:test";
import { loadConfig } from "../../src/config/load-config.ts";
import { createBlobStore } from "../../src/smartplus/create-blob-store.ts";
import type { JobStore } from "../../src/smartplus/create-job-store.ts";
import { startWorker } from "../../src/smartplus/start-worker.ts";

const { addEventListener: add, removeEventListener: remove } = EventTarget.prototype;
afterEach(() => {
  EventTarget.prototype.addEventListener = add;
  EventTarget.prototype.removeEventListener = remove;
});

/** Counts the `abort` listeners added to signals and not removed since it was called. */
function countAbortListeners(): { readonly held: number } {
  const count = { held: 0 };
  EventTarget.prototype.addEventListener = function (this: EventTarget, type: string, ...rest: unknown[]) {
    if (this instanceof AbortSignal && type === "abort") count.held++;
    return Reflect.apply(add, this, [type, ...rest]);
  } as EventTarget["addEventListener"];
  EventTarget.prototype.removeEventListener = function (this: EventTarget, type: string, ...rest: unknown[]) {
    if (this instanceof AbortSignal && type === "abort") count.held--;
    return Reflect.apply(remove, this, [type, ...rest]);
  } as EventTarget["removeEventListener"];
  return count;
}

describe("startWorker", () => {
  // A gateway polls an empty queue every second for as long as it runs: what one sleep leaves
  // behind piles up (86,400 a day).
  test("an idle worker's polls leave nothing behind on its stop signal", async () => {
    let polls = 0;
    let polled: () => void = () => {};
    const store = {
      claim: async () => {
        polls++;
        if (polls === 40) polled();
        return null;
      },
      failAbandoned: async () => [],
      expireDue: async () => [],
    } as Partial<JobStore> as JobStore;
    const held = countAbortListeners();
    const settings = { ...loadConfig({}).smartPlus, pollIntervalMs: 10 };
    const fortyPolls = new Promise<void>((resolve) => (polled = resolve));
    const worker = startWorker({ id: "idle", store, blobs: createBlobStore("/nonexistent-routelane-blobs"), settings, resolveModel: () => null });
    await fortyPolls;
    // At most the one the sleep under way holds.
    expect(held.held).toBeLessThanOrEqual(1);
    await worker.stop();
  });
});
