import { ERROR_KINDS, fail } from "./gateway-error.ts";
import type { StreamEvent } from "./stream-event.ts";

const { status: STATUS, type: TYPE } = ERROR_KINDS.ContentFiltered;
const MESSAGE = "the reply was blocked by the upstream's content filter";

/**
 * The spec (Events 4): a streamed reply a content filter blocked ends with the format's error event,
 * not a clean stop. One definition, so the translated and the pass-through paths say the same.
 */
export const CONTENT_FILTERED: Extract<StreamEvent, { type: "error" }> = {
  type: "error",
  error: { status: STATUS, type: TYPE, message: MESSAGE },
};

/** The same failure as a GatewayError, for the format encoders that take one (the pass-through path). */
export const CONTENT_FILTERED_ERROR = fail("ContentFiltered", MESSAGE);
