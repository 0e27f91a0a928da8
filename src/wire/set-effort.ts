import type { Effort } from "../canonical/effort.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import type { ModelConfig } from "../config/schema.ts";
import { setChatEffort } from "./chat/set-effort.ts";
import type { EffortResult } from "./effort-result.ts";
import { setMessagesEffort } from "./messages/set-effort.ts";
import { setResponsesEffort } from "./responses/set-effort.ts";
import type { JsonObject } from "../canonical/json-object.ts";

/** Each upstream API's effort setter: replaces the body's thinking fields with the gateway's effort. */
export const SET_EFFORT: Readonly<Record<WireFormat, (body: JsonObject, effort: Effort, model: ModelConfig) => EffortResult>> = {
  messages: setMessagesEffort,
  chat: setChatEffort,
  responses: setResponsesEffort,
};
