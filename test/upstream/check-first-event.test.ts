import { describe, expect, test } from "bun:test";
import { GatewayError } from "../../src/canonical/gateway-error.ts";
import type { WireFormat } from "../../src/canonical/wire-format.ts";
import { checkFirstEvent } from "../../src/upstream/passthrough/check-first-event.ts";
import { wireApi } from "../../src/wire/wire-apis.ts";

function outcome(format: WireFormat, event: string | undefined, data: string): string {
  try {
    return checkFirstEvent(wireApi(format), { event, data }) ? "opens" : "content";
  } catch (error) {
    if (!(error instanceof GatewayError)) throw error;
    return `${error.status} ${error.type}${error.retryable ? " retryable" : ""}${error.transient ? " transient" : ""}: ${error.message}`;
  }
}

describe("checkFirstEvent: what may still be retried or fail over before the first byte goes out", () => {
  test.each([
    ["messages", "message_start", '{"type":"message_start","message":{}}', "opens"],
    ["messages", "ping", '{"type":"ping"}', "opens"],
    ["messages", "content_block_start", '{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}', "content"],
    ["chat", undefined, '{"id":"c","object":"chat.completion.chunk","choices":[]}', "opens"],
    ["chat", undefined, '{"id":"c","choices":[{"index":0,"delta":{"role":"assistant","content":""},"finish_reason":null}]}', "opens"],
    ["chat", undefined, '{"id":"c","choices":[{"index":0,"delta":{"content":"Hi"},"finish_reason":null}]}', "content"],
    ["chat", undefined, '{"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}', "content"],
    ["responses", "response.created", '{"type":"response.created","sequence_number":0,"response":{}}', "opens"],
    ["responses", "response.in_progress", '{"type":"response.in_progress","sequence_number":1,"response":{}}', "opens"],
    ["responses", "response.output_item.added", '{"type":"response.output_item.added","sequence_number":2,"output_index":0,"item":{}}', "content"],
    ["chat", undefined, "[DONE]", "502 upstream_error retryable: upstream stream ended before any content"],
    ["messages", "message_start", '{"type": broken', "502 upstream_error retryable: upstream sent a malformed first event"],
    ["messages", "error", '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', "529 overloaded_error retryable transient: upstream overloaded: Overloaded"],
    ["chat", undefined, '{"error":{"message":"slow down","type":"rate_limit_error"}}', "429 rate_limit_error retryable transient: upstream rate limit: slow down"],
    ["responses", "error", '{"type":"error","error":{"type":"insufficient_quota","code":"insufficient_quota","message":"quota"}}', "429 rate_limit_error retryable transient: upstream rate limit: quota"],
    ["responses", "response.failed", '{"type":"response.failed","response":{"error":{"code":"server_error","message":"boom"}}}', "502 api_error retryable transient: upstream error 500: boom"],
    // The Responses error event with its fields at the top, as the API reference shows it: its code counts too.
    ["responses", "error", '{"type":"error","code":"rate_limit_exceeded","message":"slow down","param":null}', "429 rate_limit_error retryable transient: upstream rate limit: slow down"],
  ] as const)("%s %p %s → %s", (format, event, data, expected) => {
    expect(outcome(format, event, data)).toBe(expected);
  });
});
