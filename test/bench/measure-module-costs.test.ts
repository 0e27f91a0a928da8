import { describe, expect, test } from "bun:test";
import { measureModuleCosts, TARGET_LIMITS_CACHE_P50_US, TARGET_ROUTING_P50_US } from "../../src/bench/measure-module-costs.ts";

describe("measureModuleCosts", () => {
  test("times warm routing per format, limits + cache hit and miss, and the observers, on the bench config", async () => {
    const rows = await measureModuleCosts({ warmup: 20, iterations: 50, rounds: 1 });
    const ids = rows.map((r) => r.id);
    for (const format of ["messages", "chat", "responses"]) {
      expect(ids).toContain(`routing/${format}/pinned`);
      expect(ids).toContain(`routing/${format}/first-turn`);
    }
    expect(ids).toEqual(expect.arrayContaining(["limits-cache/uncapped/hit", "limits-cache/capped/miss", "observers/request-log", "observers/metrics"]));
    for (const row of rows.filter((r) => r.id.startsWith("routing/"))) {
      // Warm: the decision comes from the decision cache, never from the classifier.
      expect(row.note).toContain("decision cache hit");
      expect(row.targetP50Us).toBe(TARGET_ROUTING_P50_US);
    }
    expect(rows.find((r) => r.id === "routing/chat/pinned")!.note).toContain("source sticky");
    expect(rows.find((r) => r.id === "limits-cache/capped/hit")!).toMatchObject({ targetP50Us: TARGET_LIMITS_CACHE_P50_US, note: "limiter memory" });
    for (const row of rows) {
      expect(row.calls).toBe(50);
      expect(row.p50Us).toBeGreaterThan(0);
      expect(row.sink).toBeGreaterThan(0);
    }
  }, 30_000);
});
