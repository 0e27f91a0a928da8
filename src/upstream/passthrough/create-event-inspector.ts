import type { Usage } from "../../canonical/usage.ts";
import type { JsonObject } from "../../canonical/json-object.ts";
import type { Verdict } from "../../wire/stream-inspector.ts";
import type { WireApi } from "../../wire/wire-api.ts";
import { upstreamErrorMessage } from "../../wire/classify-upstream-error.ts";
import { createTextTally, type TextTally } from "../sse/create-text-tally.ts";
import { fromLatin1 } from "../from-latin1.ts";

export interface EventInspector {
  step(name: string | undefined, data: string): Verdict;
  /** The usage the upstream reported for the whole answer, once it has. */
  readonly usage: Usage | undefined;
  /** What the upstream said at the start (Messages `message_start`: the input tokens). */
  readonly startUsage: Usage | undefined;
  /** The message of the upstream's error event, after a `failed` verdict. */
  readonly failure: string | undefined;
  /** The text passed on so far, counted: the tally it was given. */
  readonly text: TextTally;
  /** The last event was a terminal one: the stream may end here. */
  readonly between: boolean;
  /** After a step: the data to send in place of that event; undefined to send it as it came. */
  readonly replacement: string | undefined;
}

/**
 * Reads each event of a same-format stream once, as it passes, by the API's own reading (see
 * StreamInspector), handing the text sent to `text` and keeping the message of an upstream error
 * event. Event data is read as Latin-1 (see forEachEvent): by default the text is counted as the
 * UTF-8 it is.
 */
export function createEventInspector(api: WireApi, hideUsageChunk: boolean, text: TextTally = createTextTally(fromLatin1)): EventInspector {
  let failure: string | undefined;
  const reading = api.inspectStream({
    addText: (piece) => text.add(piece),
    failed: (event: JsonObject) => {
      const message = upstreamErrorMessage(event) ?? upstreamErrorMessage(event.response);
      failure = message === undefined ? "upstream sent an error event" : fromLatin1(message);
      return "failed";
    },
    hideUsageChunk,
  });
  return {
    step: (name, data) => reading.step(name, data),
    get usage() {
      return reading.usage;
    },
    get startUsage() {
      return reading.startUsage;
    },
    get failure() {
      return failure;
    },
    get between() {
      return reading.between;
    },
    get replacement() {
      return reading.replacement;
    },
    text,
  };
}
