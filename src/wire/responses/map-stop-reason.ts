import type { StopReason, UnifiedStopReason } from "../../canonical/stop-reason.ts";

export type ResponsesStatus = "completed" | "incomplete";

export interface ResponsesOutcome {
  readonly status: ResponsesStatus;
  readonly incompleteDetails: { readonly reason: "max_output_tokens" | "content_filter" } | null;
}

/**
 * A canonical stop reason as a Responses `status` + `incomplete_details`. Responses has no stop
 * sequences, tool-use or pause status: those answers are simply `completed` (calls show as items).
 */
export function encodeResponsesStopReason(stop: StopReason): ResponsesOutcome {
  const unified: UnifiedStopReason = stop.unified;
  switch (unified) {
    case "end_turn":
    case "stop_sequence":
    case "tool_use":
    case "pause_turn":
      return { status: "completed", incompleteDetails: null };
    case "max_tokens":
      return { status: "incomplete", incompleteDetails: { reason: "max_output_tokens" } };
    case "refusal":
    case "content_filter":
      return { status: "incomplete", incompleteDetails: { reason: "content_filter" } };
    default: {
      const unreachable: never = unified;
      return unreachable;
    }
  }
}

export interface ResponsesOutcomeFacts {
  /** The Response `status`. */
  readonly status: string;
  /** `incomplete_details.reason`, when present. */
  readonly incompleteReason?: string | null;
  /** Whether the output holds function calls. */
  readonly hasToolCalls: boolean;
  /** Whether the output holds a refusal content part. */
  readonly hasRefusal: boolean;
}

/**
 * A Responses outcome as a canonical stop reason; `raw` keeps the status (and the incomplete reason
 * as `incomplete:<reason>`). `failed` / `cancelled` are not stop reasons: callers turn them into errors.
 */
export function decodeResponsesStopReason(facts: ResponsesOutcomeFacts): StopReason {
  if (facts.status === "incomplete") {
    const reason = facts.incompleteReason ?? null;
    const raw = reason === null ? "incomplete" : `incomplete:${reason}`;
    return { unified: reason === "content_filter" ? "content_filter" : "max_tokens", raw };
  }
  if (facts.hasRefusal) return { unified: "refusal", raw: facts.status };
  return { unified: facts.hasToolCalls ? "tool_use" : "end_turn", raw: facts.status };
}
