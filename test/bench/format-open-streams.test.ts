import { describe, expect, test } from "bun:test";
import { formatOpenStreams } from "../../src/bench/format-open-streams.ts";
import type { OpenStreamsResult } from "../../src/bench/run-open-streams.ts";

const MB = 1024 * 1024;
const held: OpenStreamsResult = {
  hold: 2,
  asked: 10_000,
  limitNote: undefined,
  streams: 10_000,
  opened: 10_000,
  completed: 10_000,
  errors: 0,
  openSec: 20,
  probes: 200,
  probeErrors: 0,
  probeTtfbP50Ms: 3,
  probeTtfbP99Ms: 20,
  before: { rssBytes: 300 * MB, fds: 100 },
  peak: { rssBytes: 800 * MB, fds: 20_100 },
  after: { rssBytes: 320 * MB, fds: 110 },
  rssPerStreamBytes: (500 * MB) / 10_000,
};

describe("the open-streams row", () => {
  test("errors, new requests' first byte and memory per stream against their targets", () => {
    const text = formatOpenStreams(held).join("\n");
    expect(text).toContain("10000 completed · errors 0 (target 0) PASS");
    expect(text).toContain("p99 20.00 ms (target ≤ 50) PASS");
    expect(text).toContain("51.2 KB per open stream (aim ≤ 64) PASS");
    expect(text).toContain("gateway descriptors 100 → 20100 at the peak → 110 after");
  });

  test("a capped run says why; errors, slow first bytes and heavy streams are marked", () => {
    const text = formatOpenStreams({
      ...held,
      hold: 1,
      limitNote: "the gateway's open-file limit (20000, raised to its hard limit) holds about 9814 streams: ran 9814 of 10000",
      errors: 3,
      firstError: "status 502",
      probeTtfbP99Ms: 70,
      rssPerStreamBytes: 80 * 1024,
    }).join("\n");
    expect(text).toContain("first hold");
    expect(text).toContain("! the gateway's open-file limit (20000");
    expect(text).toContain("errors 3 (target 0) MISS");
    expect(text).toContain("! first error: status 502");
    expect(text).toContain("(target ≤ 50) MISS");
    expect(text).toContain("(aim ≤ 64) MISS");
  });
});
