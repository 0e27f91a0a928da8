import { describe, expect, test } from "bun:test";
import { ERROR_KINDS, type ErrorKind, exhausted, fail } from "../../src/canonical/gateway-error.ts";

/** Each kind's answer, written out: a change to any row is a change of what callers see. */
const TABLE: Record<ErrorKind, [status: number, type: string, code: string, retryable: boolean, transient: boolean]> = {
  InvalidRequest: [400, "invalid_request_error", "invalid_request_error", false, false],
  PreviousResponseNotFound: [400, "invalid_request_error", "previous_response_not_found", false, false],
  NoModelFits: [400, "invalid_request_error", "no_model_available", false, false],
  UpstreamRejected: [400, "invalid_request_error", "invalid_request_error", false, false],
  ContentFiltered: [400, "invalid_request_error", "invalid_request_error", false, false],
  Unauthenticated: [401, "authentication_error", "authentication_error", false, false],
  Forbidden: [403, "permission_error", "permission_error", false, false],
  NotFound: [404, "not_found_error", "not_found_error", false, false],
  ModelNotFound: [404, "not_found_error", "model_not_found", false, false],
  NoSuchEndpoint: [404, "not_found_error", "not_found", false, false],
  UpstreamNotFound: [404, "not_found_error", "not_found_error", true, false],
  MethodNotAllowed: [405, "invalid_request_error", "method_not_allowed", false, false],
  Conflict: [409, "invalid_request_error", "conflict", false, false],
  Gone: [410, "invalid_request_error", "gone", false, false],
  TooLarge: [413, "request_too_large", "request_too_large", false, false],
  BadArchive: [422, "invalid_request_error", "bad_archive", false, false],
  RateLimited: [429, "rate_limit_error", "rate_limit_error", false, false],
  UpstreamRateLimited: [429, "rate_limit_error", "rate_limit_error", true, true],
  ClientClosed: [499, "api_error", "api_error", false, false],
  Internal: [500, "api_error", "api_error", false, false],
  UpstreamFailed: [502, "api_error", "api_error", true, true],
  UpstreamUnreachable: [502, "api_error", "api_error", true, true],
  UpstreamAuthRefused: [502, "upstream_error", "upstream_error", true, false],
  UpstreamMalformed: [502, "upstream_error", "upstream_error", true, false],
  UpstreamCut: [502, "upstream_error", "upstream_error", true, false],
  UpstreamTooLarge: [502, "api_error", "api_error", false, false],
  StoreUnavailable: [503, "api_error", "api_error", true, false],
  NoModelAvailable: [503, "overloaded_error", "no_model_available", false, true],
  ConversationModelUnavailable: [503, "overloaded_error", "conversation_model_unavailable", false, false],
  UpstreamTimeout: [504, "timeout_error", "timeout_error", true, true],
  UpstreamIdle: [504, "timeout_error", "timeout_error", false, false],
  UpstreamOverloaded: [529, "overloaded_error", "overloaded_error", true, true],
};

describe("error kinds", () => {
  test("the table above is every kind", () => {
    expect(Object.keys(ERROR_KINDS).sort()).toEqual(Object.keys(TABLE).sort());
  });

  for (const [kind, [status, type, code, retryable, transient]] of Object.entries(TABLE) as [ErrorKind, (typeof TABLE)[ErrorKind]][]) {
    test(`${kind}: ${status} ${type}`, () => {
      const error = fail(kind, "what happened");
      expect([error.status, error.type, error.code, error.retryable, error.transient]).toEqual([status, type, code, retryable, transient]);
      expect([error.message, error.param, error.headers, error.retryAfterMs]).toEqual(["what happened", null, {}, undefined]);
    });
  }

  test("details: the field at fault, headers, the upstream's wait; transient only where the kind leaves it open", () => {
    const error = fail("UpstreamFailed", "upstream error 501", { param: "model", headers: { "retry-after": "3" }, retryAfterMs: 3000, transient: false });
    expect([error.param, error.headers, error.retryAfterMs, error.transient, error.retryable]).toEqual(["model", { "retry-after": "3" }, 3000, false, true]);
  });

  test("exhausted: the last failure's status, type and code, nothing left to retry; an upstream's 429 reads as overloaded", () => {
    const timeout = exhausted(fail("UpstreamTimeout", "slow"), "all 2 candidate models failed; last: slow", { "x-should-retry": "true" });
    expect([timeout.status, timeout.type, timeout.code, timeout.retryable, timeout.transient, timeout.headers]).toEqual([504, "timeout_error", "timeout_error", false, true, { "x-should-retry": "true" }]);
    const busy = exhausted(fail("UpstreamRateLimited", "rate limit"), "rate limit", {});
    expect([busy.status, busy.type, busy.code]).toEqual([529, "overloaded_error", "rate_limit_error"]);
  });
});
