import { describe, expect, test } from "bun:test";
import { classifyUpstreamError } from "../../src/wire/classify-upstream-error.ts";

const anthropicBody = (type: string, message: string) => JSON.stringify({ type: "error", error: { type, message } });
const openaiBody = (message: string) => JSON.stringify({ error: { message, type: "x", param: null, code: null } });

describe("classifyUpstreamError", () => {
  const cases: Array<[number, string, number, string, boolean]> = [
    [400, anthropicBody("invalid_request_error", "messages: bad"), 400, "invalid_request_error", false],
    [401, anthropicBody("authentication_error", "invalid x-api-key"), 502, "upstream_error", true],
    [403, openaiBody("forbidden"), 502, "upstream_error", true],
    [404, openaiBody("no such model"), 404, "not_found_error", true],
    [413, "", 413, "request_too_large", false],
    [422, openaiBody("bad"), 400, "invalid_request_error", false],
    [429, openaiBody("slow down"), 429, "rate_limit_error", true],
    [500, "oops", 502, "api_error", true],
    [503, openaiBody("busy"), 529, "overloaded_error", true],
    [529, anthropicBody("overloaded_error", "Overloaded"), 529, "overloaded_error", true],
    [408, "", 504, "timeout_error", true],
  ];
  for (const [status, body, gatewayStatus, type, retryable] of cases) {
    test(`${status} → ${gatewayStatus} ${type}`, () => {
      const error = classifyUpstreamError(status, body, null);
      expect(error.status).toBe(gatewayStatus);
      expect(error.type).toBe(type as typeof error.type);
      expect(error.retryable).toBe(retryable);
    });
  }

  test("the upstream's message is kept; a 401 never blames the caller's key", () => {
    expect(classifyUpstreamError(400, anthropicBody("invalid_request_error", "max_tokens: too big"), null).message).toBe("max_tokens: too big");
    expect(classifyUpstreamError(401, anthropicBody("authentication_error", "invalid x-api-key"), null).message).toContain("gateway's credentials");
  });

  test("retry-after is carried on 429", () => {
    expect(classifyUpstreamError(429, "", new Headers({ "retry-after": "3" })).headers).toEqual({ "retry-after": "3" });
  });

  test("429, 500, 502, 503, 504, 529 (and 408) are transient, with the wait the upstream asked for", () => {
    for (const status of [408, 429, 500, 502, 503, 504, 529]) {
      const error = classifyUpstreamError(status, "", new Headers({ "retry-after-ms": "1500", "retry-after": "9" }));
      expect([status, error.transient, error.retryAfterMs]).toEqual([status, true, 1500]);
    }
    expect(classifyUpstreamError(503, "", new Headers({ "retry-after": "2" })).retryAfterMs).toBe(2000);
    expect(classifyUpstreamError(503, "", null).retryAfterMs).toBeUndefined();
    for (const status of [400, 401, 403, 404, 413, 422, 501]) expect([status, classifyUpstreamError(status, "", null).transient]).toEqual([status, false]);
  });
});
