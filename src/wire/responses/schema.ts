import { Type as t, type Static } from "@sinclair/typebox";

/** What the gateway needs of a Responses request; the rest passes through. */
export const ResponsesRequestSchema = t.Object(
  {
    model: t.Optional(t.String()),
    input: t.Union([t.String(), t.Array(t.Unknown())]),
    instructions: t.Optional(t.Union([t.String(), t.Null()])),
    stream: t.Optional(t.Union([t.Boolean(), t.Null()])),
    reasoning: t.Optional(t.Union([t.Object({}, { additionalProperties: true }), t.Null()])),
    max_output_tokens: t.Optional(t.Union([t.Integer({ minimum: 16 }), t.Null()])),
  },
  { additionalProperties: true },
);
export type ResponsesRequest = Static<typeof ResponsesRequestSchema>;
