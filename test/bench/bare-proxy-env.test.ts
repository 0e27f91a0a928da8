import { describe, expect, test } from "bun:test";
import { bareProxyEnv } from "../../src/bench/bare-proxy-env.ts";

describe("bareProxyEnv", () => {
  test("the bare proxy runs under the gateway's runtime tuning, where the environment sets none", () => {
    expect(bareProxyEnv({ PATH: "/usr/bin" }, 4100, "http://127.0.0.1:4000")).toEqual({
      PATH: "/usr/bin",
      BUN_JSC_minEdenToOldGenerationRatio: "0.75",
      MIMALLOC_PURGE_DELAY: "1000",
      BUN_JSC_heapGrowthMaxIncrease: "1",
      BARE_PORT: "4100",
      BARE_HOST: "127.0.0.1",
      BARE_UPSTREAM: "http://127.0.0.1:4000",
    });
  });

  test("a setting in the bench's environment is the one both get", () => {
    expect(bareProxyEnv({ MIMALLOC_PURGE_DELAY: "100" }, 4100, "http://127.0.0.1:4000")).toMatchObject({ MIMALLOC_PURGE_DELAY: "100" });
  });
});
