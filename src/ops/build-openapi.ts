import { Type as t, type TSchema } from "@sinclair/typebox";
import { ChatRequestSchema } from "../wire/chat/schema.ts";
import { CountTokensRequestSchema, MessagesRequestSchema } from "../wire/messages/schema.ts";
import { ResponsesRequestSchema } from "../wire/responses/schema.ts";
import { adminOpenApi } from "./admin-openapi.ts";

/** A TypeBox schema as plain JSON Schema (TypeBox's symbol keys dropped). */
const json = (schema: TSchema): Record<string, unknown> => JSON.parse(JSON.stringify(schema)) as Record<string, unknown>;
const ref = (kind: string, name: string): { $ref: string } => ({ $ref: `#/components/${kind}/${name}` });

const open = { additionalProperties: true } as const;

const MessagesErrorSchema = t.Object(
  { type: t.Literal("error"), error: t.Object({ type: t.String(), message: t.String() }, open), request_id: t.Optional(t.String()) },
  { ...open, description: "Messages error shape." },
);
const OpenAIErrorSchema = t.Object(
  {
    error: t.Object(
      { message: t.String(), type: t.String(), param: t.Union([t.String(), t.Null()]), code: t.Union([t.String(), t.Null()]) },
      open,
    ),
  },
  { ...open, description: "Chat Completions / Responses error shape." },
);
const MessageSchema = t.Object(
  { id: t.String(), type: t.Literal("message"), role: t.Literal("assistant"), model: t.String(), content: t.Array(t.Unknown()), stop_reason: t.Union([t.String(), t.Null()]), usage: t.Object({}, open) },
  { ...open, description: "A Messages answer; `model` shows the tier." },
);
const ChatCompletionSchema = t.Object(
  { id: t.String(), object: t.Literal("chat.completion"), created: t.Integer(), model: t.String(), choices: t.Array(t.Unknown()), usage: t.Optional(t.Object({}, open)) },
  { ...open, description: "A Chat Completions answer; `model` shows the tier." },
);
const ResponseObjectSchema = t.Object(
  { id: t.String(), object: t.Literal("response"), status: t.String(), model: t.String(), output: t.Array(t.Unknown()), usage: t.Optional(t.Union([t.Object({}, open), t.Null()])) },
  { ...open, description: "A Responses answer; `model` shows the tier." },
);
const CountTokensResultSchema = t.Object({ input_tokens: t.Integer(), estimated: t.Optional(t.Boolean()) }, open);
const ModelSchema = t.Object(
  { id: t.String(), object: t.Literal("model"), type: t.Literal("model"), display_name: t.String(), context_window: t.Integer(), max_output_tokens: t.Integer() },
  { ...open, description: "A tier, in a shape both SDK families read." },
);
const ModelListSchema = t.Object({ object: t.Literal("list"), data: t.Array(ModelSchema) }, open);
const ServiceSchema = t.Object({ name: t.String(), version: t.String() });
const HealthSchema = t.Object({ status: t.String() }, open);
const ReadySchema = t.Object({ status: t.String(), failing: t.Optional(t.String()), reason: t.Optional(t.String()) }, open);
const ReloadResultSchema = t.Object({ reloaded: t.Boolean(), tiers: t.Array(t.String()), models: t.Array(t.String()) }, open);

const ROUTER_HEADERS: Readonly<Record<string, string>> = {
  "x-router-tier": "The tier that answered.",
  "x-router-model": "The configured model that answered.",
  "x-router-effort": "The reasoning effort the gateway set (`off|low|medium|high|max`).",
  "x-router-source": "What decided the route (`default`, a rule, the classifier, …).",
  "x-router-request-id": "The gateway's request id (also in `request-id` / `x-request-id`).",
};

/** The error body's schema: the Messages shape, or the one both OpenAI APIs share. */
type ErrorSchema = "MessagesError" | "OpenAIError";
const ERROR_STATUSES: ReadonlyArray<readonly [string, string]> = [
  ["400", "Bad JSON, a wrong type or a missing field (named)."],
  ["401", "Missing or unknown key."],
  ["403", "Tier outside the plan, or account suspended."],
  ["413", "Body over the limit."],
  ["429", "A limit was hit."],
  ["502", "The upstream failed."],
  ["503", "The upstream is overloaded or unavailable."],
  ["504", "The upstream was silent past the timeout."],
];

function errorResponses(schema: ErrorSchema): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [status, description] of ERROR_STATUSES) {
    out[status] = { description, content: { "application/json": { schema: ref("schemas", schema) } } };
  }
  return out;
}

const routerHeaderRefs = (): Record<string, unknown> => Object.fromEntries(Object.keys(ROUTER_HEADERS).map((name) => [name, ref("headers", name)]));

function chatOperation(summary: string, errors: ErrorSchema, body: string, answer: string, extraParams: unknown[] = []): Record<string, unknown> {
  return {
    summary,
    tags: ["inference"],
    security: [{ apiKey: [] }, { bearer: [] }],
    parameters: extraParams,
    requestBody: { required: true, content: { "application/json": { schema: ref("schemas", body) } } },
    responses: {
      "200": {
        description: "The answer in the called format; with `stream: true`, that format's server-sent events.",
        headers: routerHeaderRefs(),
        content: { "application/json": { schema: ref("schemas", answer) }, "text/event-stream": { schema: { type: "string" } } },
      },
      ...errorResponses(errors),
    },
  };
}

const anthropicHeaders = [
  { name: "anthropic-version", in: "header", required: false, schema: { type: "string" }, description: "Any date; accepted and passed on." },
  { name: "anthropic-beta", in: "header", required: false, schema: { type: "string" }, description: "Passed through untouched." },
];

const jobParameter = { name: "job", in: "path", required: true, schema: { type: "string" } };

/** The handoff endpoints answer errors in the Messages-style shape. */
function handoffErrors(statuses: readonly (readonly [string, string])[]): Record<string, unknown> {
  return Object.fromEntries(statuses.map(([status, description]) => [status, { description, content: { "application/json": { schema: ref("schemas", "MessagesError") } } }]));
}

const plain = (summary: string, tag: string, schema: string, description = "OK"): Record<string, unknown> => ({
  summary,
  tags: [tag],
  responses: { "200": { description, content: { "application/json": { schema: ref("schemas", schema) } } } },
});

/**
 * The OpenAPI 3.1 document, built from the same TypeBox schemas the pipeline checks bodies with.
 * The chat routes read their own bodies (no Elysia body schema), so their request bodies are
 * attached here explicitly rather than derived from route metadata.
 */
export function buildOpenApi(version: string): Record<string, unknown> {
  const models = { security: [{ apiKey: [] }, { bearer: [] }], tags: ["models"] };
  const admin = adminOpenApi();
  return {
    openapi: "3.1.0",
    info: {
      title: "Routelane",
      version,
      description: "A model-routing LLM gateway: Messages, Chat Completions and Responses in; `model` is a tier (fast, normal, smart, smart-plus).",
    },
    paths: {
      "/": { get: plain("Service name and version", "service", "Service"), head: { summary: "Service check", tags: ["service"], responses: { "200": { description: "OK" } } } },
      "/v1/messages": { post: chatOperation("Messages", "MessagesError", "MessagesRequest", "Message", anthropicHeaders) },
      "/v1/messages/count_tokens": {
        post: {
          ...chatOperation("Count input tokens (the tier's model upstream; a local estimate flagged `estimated` when it cannot count)", "MessagesError", "CountTokensRequest", "CountTokensResult", anthropicHeaders),
          responses: { "200": { description: "The count.", content: { "application/json": { schema: ref("schemas", "CountTokensResult") } } }, ...errorResponses("MessagesError") },
        },
      },
      "/v1/chat/completions": { post: chatOperation("Chat Completions", "OpenAIError", "ChatRequest", "ChatCompletion") },
      "/v1/responses": { post: chatOperation("Responses", "OpenAIError", "ResponsesRequest", "Response") },
      "/v1/models": { get: { ...plain("The tiers of the key's plan", "models", "ModelList"), ...models, responses: { ...plain("", "", "ModelList").responses as object, ...errorResponses("OpenAIError") } } },
      "/v1/models/{id}": {
        get: {
          ...plain("One tier", "models", "Model"),
          ...models,
          parameters: [{ name: "id", in: "path", required: true, schema: { type: "string" } }],
          responses: { ...(plain("", "", "Model").responses as object), "404": { description: "No such tier in the plan.", content: { "application/json": { schema: ref("schemas", "OpenAIError") } } }, ...errorResponses("OpenAIError") },
        },
      },
      "/v1/handoff/{job}/upload": {
        post: {
          summary: "Smart+: upload the repository of a job (tar.gz stream)",
          tags: ["smart-plus"],
          security: [{ jobBearer: [] }],
          parameters: [jobParameter],
          requestBody: { required: true, content: { "application/gzip": { schema: { type: "string", format: "binary" } } } },
          responses: {
            "201": { description: "Stored: the number of files and bytes.", content: { "application/json": { schema: { type: "object", properties: { files: { type: "integer" }, bytes: { type: "integer" } } } } } },
            ...handoffErrors([
              ["401", "No, unknown or expired job token (an API key is not one)."],
              ["403", "The token belongs to another job."],
              ["409", "Already uploaded."],
              ["410", "The job failed or expired."],
              ["413", "Over the upload limit (checked while streaming)."],
              ["422", "Not a safe archive (absolute paths, `..`, links out, devices, limits)."],
            ]),
          },
        },
      },
      "/v1/handoff/{job}/patch": {
        get: {
          summary: "Smart+: download the job's unified diff",
          tags: ["smart-plus"],
          security: [{ jobBearer: [] }],
          parameters: [jobParameter],
          responses: {
            "200": { description: "The patch, for `git apply`.", content: { "text/x-diff": { schema: { type: "string" } } } },
            ...handoffErrors([
              ["401", "No, unknown or expired job token (an API key is not one)."],
              ["403", "The token belongs to another job."],
              ["409", "Not ready: the message names the job's state."],
              ["410", "The job expired."],
            ]),
          },
        },
      },
      "/healthz": { get: plain("Process up (no dependencies checked)", "operations", "Health") },
      "/readyz": {
        get: {
          ...plain("Database reachable and migrated, Redis reachable when configured", "operations", "Ready"),
          responses: {
            "200": { description: "Ready.", content: { "application/json": { schema: ref("schemas", "Ready") } } },
            "503": { description: "Not ready: `failing` names the part (draining, database, migrations, redis).", content: { "application/json": { schema: ref("schemas", "Ready") } } },
          },
        },
      },
      "/metrics": {
        get: {
          summary: "Prometheus metrics",
          tags: ["operations"],
          security: [{}, { metricsBearer: [] }],
          description: "Needs `Authorization: Bearer $ROUTELANE_METRICS_TOKEN` when that variable is set.",
          responses: { "200": { description: "Text exposition format.", content: { "text/plain": { schema: { type: "string" } } } }, "401": { description: "Missing or wrong metrics token." } },
        },
      },
      "/openapi.json": { get: { summary: "This document", tags: ["operations"], responses: { "200": { description: "OpenAPI 3.1", content: { "application/json": { schema: { type: "object" } } } } } } },
      "/docs": { get: { summary: "API documentation page", tags: ["operations"], responses: { "200": { description: "HTML", content: { "text/html": { schema: { type: "string" } } } } } } },
      ...admin.paths,
    },
    components: {
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "x-api-key", description: "A Routelane key (`rl_…`)." },
        bearer: { type: "http", scheme: "bearer", description: "A Routelane key in `Authorization: Bearer`." },
        adminBearer: { type: "http", scheme: "bearer", description: "ROUTELANE_ADMIN_TOKEN." },
        consoleSession: { type: "apiKey", in: "cookie", name: "routelane_console", description: "A console session (writes also need its `x-csrf-token` header)." },
        metricsBearer: { type: "http", scheme: "bearer", description: "ROUTELANE_METRICS_TOKEN." },
        jobBearer: { type: "http", scheme: "bearer", description: "A Smart+ job token (`rlj_…`), valid for its one job." },
      },
      headers: Object.fromEntries(Object.entries(ROUTER_HEADERS).map(([name, description]) => [name, { description, schema: { type: "string" } }])),
      schemas: {
        MessagesRequest: json(MessagesRequestSchema),
        CountTokensRequest: json(CountTokensRequestSchema),
        ChatRequest: json(ChatRequestSchema),
        ResponsesRequest: json(ResponsesRequestSchema as TSchema),
        Message: json(MessageSchema),
        ChatCompletion: json(ChatCompletionSchema),
        Response: json(ResponseObjectSchema),
        CountTokensResult: json(CountTokensResultSchema),
        Model: json(ModelSchema),
        ModelList: json(ModelListSchema),
        MessagesError: json(MessagesErrorSchema),
        OpenAIError: json(OpenAIErrorSchema),
        Service: json(ServiceSchema),
        Health: json(HealthSchema),
        Ready: json(ReadySchema),
        ReloadResult: json(ReloadResultSchema),
        ...admin.schemas,
      },
    },
  };
}
