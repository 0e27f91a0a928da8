import { describe, expect, test } from "bun:test";
import { DatabaseFailure } from "../../src/db/sanitize-db-error.ts";
import { POSTGRES_POOL_SIZE } from "../../src/db/client.ts";
import { retryDroppedConnection } from "../../src/db/retry-dropped-connection.ts";

const dropped = () => new DatabaseFailure("database query failed: write CONNECTION_CLOSED 127.0.0.1:5432 (CONNECTION_CLOSED)", "CONNECTION_CLOSED");
const shutDown = () => new DatabaseFailure("database query failed: terminating connection due to administrator command (57P01)", "57P01");
const reset = () => new DatabaseFailure("database query failed: read ECONNRESET (ECONNRESET)", "ECONNRESET");
const refused = () => new DatabaseFailure("database query failed: connect ECONNREFUSED (ECONNREFUSED)", "ECONNREFUSED");

/** A read that fails with `failures` in order, then answers "row". */
function scripted(failures: readonly Error[]) {
  let calls = 0;
  return {
    read: async () => {
      const failure = failures[calls++];
      if (failure) throw failure;
      return "row";
    },
    calls: () => calls,
  };
}

describe("retryDroppedConnection", () => {
  const cases: { name: string; failures: Error[]; answers: boolean; calls: number }[] = [
    { name: "answers at once", failures: [], answers: true, calls: 1 },
    { name: "every pooled connection dropped, then a new one answers", failures: Array.from({ length: POSTGRES_POOL_SIZE }, dropped), answers: true, calls: POSTGRES_POOL_SIZE + 1 },
    { name: "more dropped connections than the pool holds: the caller hears", failures: Array.from({ length: POSTGRES_POOL_SIZE + 1 }, dropped), answers: false, calls: POSTGRES_POOL_SIZE + 1 },
    { name: "connections the server was closing as the query arrived count as dropped", failures: [shutDown(), shutDown(), dropped()], answers: true, calls: 4 },
    { name: "a connection reset while the query was on the wire counts as dropped", failures: [reset(), reset(), reset()], answers: true, calls: 4 },
    { name: "another failure is tried once more", failures: [refused()], answers: true, calls: 2 },
    { name: "another failure twice: the caller hears", failures: [refused(), refused()], answers: false, calls: 2 },
    { name: "a dropped connection, then the server unreachable twice: the caller hears", failures: [dropped(), refused(), refused()], answers: false, calls: 3 },
    { name: "a plain error (not the driver's) is tried once more", failures: [new Error("boom")], answers: true, calls: 2 },
    { name: "dropped connections and one other failure: both allowances hold", failures: [dropped(), dropped(), refused(), dropped()], answers: true, calls: 5 },
  ];
  for (const c of cases) {
    test(c.name, async () => {
      const read = scripted(c.failures);
      const outcome = await retryDroppedConnection(read.read).then(
        (value) => ({ value }),
        (error: unknown) => ({ error }),
      );
      if (c.answers) expect(outcome).toEqual({ value: "row" });
      else expect((outcome as { error: unknown }).error).toBe(c.failures[read.calls() - 1]);
      expect(read.calls()).toBe(c.calls);
    });
  }

  test("an attempt that never settles is given up after its deadline and tried once more", async () => {
    let calls = 0;
    const read = () => (++calls === 1 ? new Promise<string>(() => {}) : Promise.resolve("row"));
    expect(await retryDroppedConnection(read, 20)).toBe("row");
    expect(calls).toBe(2);
  });

  test("two attempts past their deadline: the caller hears", async () => {
    let calls = 0;
    const read = () => {
      calls++;
      return new Promise<string>(() => {});
    };
    await expect(retryDroppedConnection(read, 20)).rejects.toThrow("the database did not answer within 20 ms");
    expect(calls).toBe(2);
  });
});
