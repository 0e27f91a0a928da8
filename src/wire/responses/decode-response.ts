import type { OutputPart } from "../../canonical/content-part.ts";
import type { Converted } from "../../canonical/converted.ts";
import { fail, type GatewayError, gatewayErrorOf } from "../../canonical/gateway-error.ts";
import type { CanonicalResponse } from "../../canonical/response.ts";
import { decodeResponsesStopReason } from "./map-stop-reason.ts";
import { decodeResponsesUsage } from "./map-usage.ts";
import { classifyResponsesFailure } from "./classify-responses-failure.ts";
import { readOutputItem } from "./read-output-item.ts";
import { isJsonObject } from "../../canonical/json-object.ts";

const invalidAnswer = (why: string): GatewayError => fail("UpstreamMalformed", `invalid Responses answer from upstream: ${why}`);

/** A Responses non-stream answer as a canonical response; a failed or cancelled one is an error. */
export function decodeResponsesResponse(body: unknown): Converted<CanonicalResponse> {
  if (!isJsonObject(body)) throw invalidAnswer("not a JSON object");
  if (typeof body.id !== "string") throw invalidAnswer("no id");
  if (!Array.isArray(body.output)) throw invalidAnswer("no output array");
  const status = typeof body.status === "string" ? body.status : "completed";
  if (status === "failed" || status === "cancelled") {
    const failure = classifyResponsesFailure(body.error, `upstream response ${status}`);
    throw gatewayErrorOf(failure.status, failure.type, failure.message, { retryable: failure.status !== 502 });
  }
  if (status !== "completed" && status !== "incomplete") throw invalidAnswer(`status ${status}`);
  const warnings: string[] = [];
  const content: OutputPart[] = [];
  let refusal = false;
  body.output.forEach((item) => {
    const read = readOutputItem(item, warnings);
    content.push(...read.parts);
    refusal ||= read.refusal;
  });
  const incomplete = isJsonObject(body.incomplete_details) && typeof body.incomplete_details.reason === "string" ? body.incomplete_details.reason : null;
  const stopReason = decodeResponsesStopReason({
    status,
    incompleteReason: incomplete,
    hasToolCalls: content.some((part) => part.type === "tool_call"),
    hasRefusal: refusal,
  });
  return {
    value: {
      id: body.id,
      model: typeof body.model === "string" ? body.model : "",
      content,
      stopReason,
      usage: decodeResponsesUsage(body.usage),
    },
    warnings,
  };
}
