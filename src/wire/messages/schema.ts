import { Type as t, type Static } from "@sinclair/typebox";

/**
 * What the gateway itself needs of a Messages request. Everything else passes through untouched,
 * so objects allow additional properties.
 */
export const MessagesRequestSchema = t.Object(
  {
    model: t.Optional(t.String()),
    max_tokens: t.Integer({ minimum: 0 }),
    messages: t.Array(
      t.Object({ role: t.String(), content: t.Union([t.String(), t.Array(t.Unknown())]) }, { additionalProperties: true }),
    ),
    system: t.Optional(t.Union([t.String(), t.Array(t.Unknown())])),
    stream: t.Optional(t.Boolean()),
    thinking: t.Optional(t.Object({ type: t.String() }, { additionalProperties: true })),
    output_config: t.Optional(t.Object({}, { additionalProperties: true })),
  },
  { additionalProperties: true },
);
export type MessagesRequest = Static<typeof MessagesRequestSchema>;

/** count_tokens takes a Messages request without `max_tokens`. */
export const CountTokensRequestSchema = t.Object(
  {
    model: t.Optional(t.String()),
    messages: MessagesRequestSchema.properties.messages,
    system: MessagesRequestSchema.properties.system,
    tools: t.Optional(t.Array(t.Unknown())),
  },
  { additionalProperties: true },
);
export type CountTokensRequest = Static<typeof CountTokensRequestSchema>;
