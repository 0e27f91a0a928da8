import { expect, test } from "bun:test";
import { readResponseId } from "../../../src/wire/responses/read-response-id.ts";

test.each([
  ["a JSON answer", '{"id":"resp_abc123","object":"response","output":[{"id":"msg_1"}]}', "resp_abc123"],
  ["pretty-printed JSON", '{\n  "id": "resp_pretty",\n  "object": "response"\n}', "resp_pretty"],
  ["a first event", 'event: response.created\ndata: {"type":"response.created","sequence_number":0,"response":{"id":"resp_sse","object":"response"}}\n\n', "resp_sse"],
  ["item ids only", '{"type":"response.output_item.added","item":{"id":"msg_1"}}', undefined],
  ["nothing", "", undefined],
] as const)("%s", (_name, text, expected) => {
  expect(readResponseId(text)).toBe(expected);
  expect(readResponseId(new TextEncoder().encode(text))).toBe(expected);
});
