import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../src/canonical/gateway-error.ts";
import { checkFirstEvent } from "../../src/upstream/passthrough/check-first-event.ts";

function outcome(event: string | undefined, data: string): string {
  try {
    checkFirstEvent({ event, data });
    return "ok";
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return `${error.status} ${error.type}${error.retryable ? " retryable" : ""}: ${error.message}`;
  }
}

describe("checkFirstEvent: what may still fail over before the first byte goes out", () => {
  test.each([
    ["message_start", '{"type":"message_start","message":{}}', "ok"],
    [undefined, '{"id":"c","object":"chat.completion.chunk","choices":[]}', "ok"],
    ["response.created", '{"type":"response.created","sequence_number":0,"response":{}}', "ok"],
    [undefined, "[DONE]", "502 api_error retryable: upstream stream ended before any content"],
    ["message_start", '{"type": broken', "502 api_error retryable: upstream sent a malformed first event"],
    ["error", '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', "529 overloaded_error retryable: upstream overloaded: Overloaded"],
    [undefined, '{"error":{"message":"slow down","type":"rate_limit_error"}}', "429 rate_limit_error retryable: upstream rate limit: slow down"],
    ["response.failed", '{"type":"response.failed","response":{"error":{"code":"server_error","message":"boom"}}}', "502 api_error retryable: upstream error 500: boom"],
  ])("%p %s → %s", (event, data, expected) => {
    expect(outcome(event, data)).toBe(expected);
  });
});
