import { describe, expect, test } from "bun:test";
import { createChildGroup } from "../../src/bench/child-group.ts";

describe("createChildGroup", () => {
  test("keeps only the tail of a child's output, ending with its last line", async () => {
    const group = createChildGroup();
    const script = "for (let i = 0; i < 2000; i++) console.log('line ' + i + ' ' + 'x'.repeat(20)); console.log('the end');";
    const child = group.spawn("printer", [process.execPath, "-e", script], { ...process.env });
    await child.exited;
    await child.drained;
    const out = child.output();
    expect(out.endsWith("the end\n")).toBe(true);
    expect(out.length).toBeLessThanOrEqual(8 * 1024);
    expect(out).not.toContain("line 0 ");
    expect(out).toContain("line 1999 ");
    await group.stopAll();
  }, 30_000);
});
