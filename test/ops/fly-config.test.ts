import { describe, expect, test } from "bun:test";
import { readFileSync } from "node:fs";
import { join } from "node:path";

interface FlyConfig {
  vm?: { memory?: string; memory_mb?: number }[];
  env?: Record<string, string>;
  http_service?: { internal_port?: number; concurrency?: { type?: string; soft_limit?: number; hard_limit?: number } };
}

/** "1gb", "512mb" or a bare number of MB, as fly.toml takes them. */
function megabytes(size: string | number): number {
  if (typeof size === "number") return size;
  const match = /^(\d+)\s*(gb|mb)?$/i.exec(size.trim());
  if (!match) throw new Error(`unreadable memory size: ${size}`);
  return Number(match[1]) * (match[2]?.toLowerCase() === "gb" ? 1024 : 1);
}

describe("fly.toml", () => {
  const config = Bun.TOML.parse(readFileSync(join(import.meta.dir, "../../fly.toml"), "utf8")) as FlyConfig;

  test("asks for a machine with room for PGlite: Fly's default 256 MB is below its idle RSS", () => {
    const vm = config.vm?.[0];
    expect(vm).toBeDefined();
    const size = vm!.memory ?? vm!.memory_mb;
    expect(size).toBeDefined();
    expect(megabytes(size!)).toBeGreaterThanOrEqual(1024);
  });

  test("listens where the service sends traffic", () => {
    expect(config.env?.PORT).toBe(String(config.http_service?.internal_port));
    expect(config.env?.HOST).toBe("0.0.0.0");
  });

  test("lets a machine hold thousands of streams, within its memory (each open stream held 52–74 KB in the bench)", () => {
    const concurrency = config.http_service?.concurrency;
    expect(concurrency?.type).toBe("requests");
    expect(concurrency!.hard_limit!).toBeGreaterThanOrEqual(2000);
    expect(concurrency!.soft_limit!).toBeLessThanOrEqual(concurrency!.hard_limit!);
    const vm = config.vm![0]!;
    const underLoadMb = 450;
    expect(underLoadMb + (concurrency!.hard_limit! * 75) / 1024).toBeLessThanOrEqual(megabytes((vm.memory ?? vm.memory_mb)!));
  });
});
