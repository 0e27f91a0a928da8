import { isJsonObject, type JsonObject } from "../canonical/json-object.ts";
import type { Usage } from "../canonical/usage.ts";

/**
 * What to do with one upstream event of a stream passed through: pass it on; hide it (the Chat
 * usage chunk the client did not ask for, a repeated Messages `message_start`); pass it as the
 * possible end (a terminal event: `message_stop`, `[DONE]`, `response.completed`: the stream ends
 * there unless more follows, as another message of a Messages stream does); or stop the stream at
 * it: before it when it is malformed or a content filter's ending, after it when it is the
 * upstream's own error event.
 */
export type Verdict = "pass" | "hide" | "stopped" | "malformed" | "filtered" | "failed";

/** What the pass-through pipe gives an API's reading of its events. */
export interface InspectContext {
  /** Text the client is sent (content, reasoning, tool names and arguments), for counting. */
  addText(piece: string): void;
  /** Notes the upstream's error event (its message) and gives the `failed` verdict. */
  failed(event: JsonObject): Verdict;
  /** Chat streams: the usage chunk is the gateway's, not the client's (see WireApi.askStreamUsage). */
  readonly hideUsageChunk: boolean;
}

/**
 * One API's reading of a stream passed through, each event once as it passes: every event is
 * checked to be JSON (a malformed one must never reach the client), and the few fields the gateway
 * needs are read from it: the terminal event, a filter's ending, the usage, the text for counting.
 */
export interface StreamInspector {
  /** `data` as read (Latin-1, see forEachEvent). */
  step(name: string | undefined, data: string): Verdict;
  /** The usage the upstream reported for the whole answer, once it has. */
  readonly usage: Usage | undefined;
  /** What the upstream said at the start (Messages `message_start`: the input tokens). */
  readonly startUsage: Usage | undefined;
  /** The last event was a terminal one (Messages: a message has stopped and no other has started): the stream may end here. */
  readonly between: boolean;
  /**
   * After a step: the data to send in place of that event (read as Latin-1, like the event), when
   * clients could not read it as it came; undefined to send it as it came.
   */
  readonly replacement: string | undefined;
}

/** An event's data as a JSON object; undefined when it is not one. */
export function parseEventData(data: string): JsonObject | undefined {
  try {
    const value: unknown = JSON.parse(data);
    return isJsonObject(value) ? value : undefined;
  } catch {
    return undefined;
  }
}

/** A string worth counting: non-empty. */
export const textOf = (value: unknown): string | undefined => (typeof value === "string" && value !== "" ? value : undefined);
