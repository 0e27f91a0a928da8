import { describe, expect, test } from "bun:test";
import { countAllocatedCells } from "../../src/bench/count-allocated-cells.ts";

const kept: unknown[] = [];

/** Warmed first, as the cost section's calls are: the compilers settle, and the counts with them. */
async function counted(call: () => unknown) {
  for (let i = 0; i < 5_000; i++) await call();
  const cells = await countAllocatedCells(call);
  if (!cells) throw new Error("no batch ran clear of a collection");
  return { total: Math.round(cells.perCall), types: Object.fromEntries(cells.byType.filter((t) => t.perCall >= 0.5).map((t) => [t.type, Math.round(t.perCall)])) };
}

describe("countAllocatedCells", () => {
  test("an object holding an array: two cells a call, each of its type", async () => {
    expect(
      await counted(() => {
        kept[0] = { a: 1, b: [1, 2] };
        return 1;
      }),
    ).toEqual({ total: 2, types: { Object: 1, Array: 1 } });
  });

  test("a call that allocates nothing counts none: the heap walks' own cells are taken off", async () => {
    expect(await counted(() => 1)).toEqual({ total: 0, types: {} });
  });

  test("closures count a function and a scope each", async () => {
    expect(
      await counted(() => {
        const fns: Array<() => number> = [];
        for (let i = 0; i < 10; i++) {
          const captured = i;
          fns.push(() => captured);
        }
        kept[0] = fns;
        return fns.length;
      }),
    ).toEqual({ total: 21, types: { Function: 10, JSLexicalEnvironment: 10, Array: 1 } });
  });

  test("an async call is awaited, and what its wait allocates counts too", async () => {
    const result = await counted(async () => {
      kept[0] = { a: 1 };
      await null;
      return 1;
    });
    expect(result.types.Object).toBe(1);
    expect(result.total).toBeGreaterThan(1);
  });
});
