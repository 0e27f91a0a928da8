import type { TSchema } from "@sinclair/typebox";
import { invalidRequest } from "../../canonical/gateway-error.ts";
import type { JsonObject } from "../../canonical/json-object.ts";
import { compileBodyCheck } from "../compile-body-check.ts";
import { ResponsesRequestSchema } from "./schema.ts";

/** What the Responses API refuses although it fits the wire schema: an empty `input`. */
export function checkResponsesRules(body: Readonly<Record<string, unknown>>): void {
  const input = body.input;
  if ((Array.isArray(input) || typeof input === "string") && input.length === 0) throw invalidRequest("`input`: must not be empty", "input");
}

const checkBody = compileBodyCheck(ResponsesRequestSchema as TSchema);

/** A Responses request body checked against the schema, then the API's rules; throws a 400 naming the field. */
export function checkResponsesRequest(body: unknown): JsonObject {
  const checked = checkBody(body) as JsonObject;
  checkResponsesRules(checked);
  return checked;
}
