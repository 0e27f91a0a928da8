import { Type as t, type Static } from "@sinclair/typebox";

/** What the gateway needs of a Chat Completions request; the rest passes through. */
export const ChatRequestSchema = t.Object(
  {
    model: t.Optional(t.String()),
    messages: t.Array(t.Object({ role: t.String() }, { additionalProperties: true })),
    stream: t.Optional(t.Union([t.Boolean(), t.Null()])),
    stream_options: t.Optional(t.Union([t.Object({ include_usage: t.Optional(t.Boolean()) }, { additionalProperties: true }), t.Null()])),
    reasoning_effort: t.Optional(t.Union([t.String(), t.Null()])),
    max_tokens: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()])),
    max_completion_tokens: t.Optional(t.Union([t.Integer({ minimum: 1 }), t.Null()])),
  },
  { additionalProperties: true },
);
export type ChatRequest = Static<typeof ChatRequestSchema>;
