import type { JsonObject } from "../../canonical/json-object.ts";

const OPENING_TYPES: ReadonlySet<unknown> = new Set(["response.created", "response.queued", "response.in_progress"]);

/** The start of the response's lifecycle opens a Responses stream without content. */
export const responsesOpensStream = (event: JsonObject): boolean => OPENING_TYPES.has(event.type);
