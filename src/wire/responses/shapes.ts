/**
 * The Responses API's answers as they travel: the gateway writes them to its clients and the
 * simulator sends them as an upstream would. Written as type aliases so that each is also a plain
 * JSON object where one is expected. Fields the gateway never writes but the API may send are
 * optional; settings a response echoes from its request are `unknown`.
 */

/** The `usage` object: cached input counts inside `input_tokens`, reasoning inside `output_tokens`. */
export type ResponsesUsage = {
  readonly input_tokens: number;
  readonly input_tokens_details: { readonly cached_tokens: number; readonly cache_write_tokens?: number };
  readonly output_tokens: number;
  readonly output_tokens_details: { readonly reasoning_tokens: number };
  readonly total_tokens: number;
};

export type ResponsesOutputText = { readonly type: "output_text"; readonly text: string; readonly annotations: readonly unknown[]; readonly logprobs: readonly unknown[] };

export type ResponsesItemStatus = "in_progress" | "completed" | "incomplete";

export type ResponsesMessageItem = {
  readonly type: "message";
  readonly id: string;
  readonly status: ResponsesItemStatus;
  readonly role: "assistant";
  readonly content: readonly ResponsesOutputText[];
};

export type ResponsesFunctionCallItem = {
  readonly type: "function_call";
  readonly id: string;
  readonly call_id: string;
  readonly name: string;
  readonly arguments: string;
  readonly status: ResponsesItemStatus;
};

export type ResponsesReasoningItem = {
  readonly type: "reasoning";
  readonly id: string;
  readonly summary: readonly { readonly type: "summary_text"; readonly text: string }[];
  readonly encrypted_content?: string;
};

/** One item of a response's `output`. */
export type ResponsesOutputItem = ResponsesMessageItem | ResponsesFunctionCallItem | ResponsesReasoningItem;

/** A `Response` object, `object: "response"`, with every field the API marks required. */
export type ResponsesResponse = {
  readonly id: string;
  readonly object: "response";
  readonly created_at: number;
  /** Left out until the response completes: a finished response never has it null. */
  readonly completed_at?: number;
  readonly status: "in_progress" | "completed" | "incomplete";
  readonly background: boolean;
  readonly error: null;
  readonly incomplete_details: { readonly reason: string } | null;
  readonly instructions: unknown;
  readonly max_output_tokens: unknown;
  readonly model: string;
  readonly output: readonly ResponsesOutputItem[];
  readonly parallel_tool_calls: unknown;
  readonly previous_response_id: unknown;
  readonly reasoning: { readonly effort?: string; readonly summary: unknown };
  readonly service_tier?: string;
  readonly store: unknown;
  readonly temperature: unknown;
  readonly text: unknown;
  readonly tool_choice: unknown;
  readonly tools: unknown;
  readonly top_p: unknown;
  readonly truncation: unknown;
  readonly usage: ResponsesUsage | null;
  readonly metadata: unknown;
};

type ItemAt = { readonly item_id: string; readonly output_index: number };
type SummaryPart = { readonly type: "summary_text"; readonly text: string };
type ResponseFields = { readonly response: ResponsesResponse };
type ItemFields = { readonly output_index: number; readonly item: ResponsesOutputItem };
type ContentPartFields = ItemAt & { readonly content_index: number; readonly part: ResponsesOutputText };
type SummaryPartFields = ItemAt & { readonly summary_index: number; readonly part: SummaryPart };

/** The fields of each stream event past its `type` and `sequence_number`, by type. */
type ResponsesEventFieldsByType = {
  readonly "response.created": ResponseFields;
  readonly "response.in_progress": ResponseFields;
  readonly "response.completed": ResponseFields;
  readonly "response.incomplete": ResponseFields;
  readonly "response.output_item.added": ItemFields;
  readonly "response.output_item.done": ItemFields;
  readonly "response.content_part.added": ContentPartFields;
  readonly "response.content_part.done": ContentPartFields;
  readonly "response.output_text.delta": ItemAt & { readonly content_index: number; readonly delta: string; readonly logprobs: readonly unknown[] };
  readonly "response.output_text.done": ItemAt & { readonly content_index: number; readonly text: string; readonly logprobs: readonly unknown[] };
  readonly "response.reasoning_summary_part.added": SummaryPartFields;
  readonly "response.reasoning_summary_part.done": SummaryPartFields;
  readonly "response.reasoning_summary_text.delta": ItemAt & { readonly summary_index: number; readonly delta: string };
  readonly "response.reasoning_summary_text.done": ItemAt & { readonly summary_index: number; readonly text: string };
  readonly "response.function_call_arguments.delta": ItemAt & { readonly delta: string };
  readonly "response.function_call_arguments.done": ItemAt & { readonly arguments: string };
};

export type ResponsesEventType = keyof ResponsesEventFieldsByType;

/** An event's fields past its `type` and `sequence_number`, for the event of that type. */
export type ResponsesEventFields<T extends ResponsesEventType> = ResponsesEventFieldsByType[T];

/** One event of a stream (the error event aside), under the SSE event name of its `type`, numbered by `sequence_number` from 0. */
export type ResponsesStreamEvent = {
  [T in ResponsesEventType]: { readonly type: T; readonly sequence_number: number } & ResponsesEventFieldsByType[T];
}[ResponsesEventType];
