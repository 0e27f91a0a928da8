import { USAGE_GROUPS } from "../usage/query-usage-report.ts";
import { USAGE_TOTAL_FIELDS } from "../usage/usage-sums.ts";

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });
const json = (schema: unknown) => ({ "application/json": { schema } });
const error = (description: string) => ({ description, content: json(ref("OpenAIError")) });
const path = (name: string, description: string) => ({ name, in: "path", required: true, schema: { type: "string" }, description });
const query = (name: string, description: string, schema: Record<string, unknown> = { type: "string" }) => ({ name, in: "query", required: false, schema, description });

const nullable = (type: string) => ({ type: [type, "null"] });
const ACCOUNT = {
  type: "object",
  properties: {
    id: { type: "string" },
    plan: { enum: ["Starter", "Pro", "Enterprise"] },
    default_tier: { type: "string" },
    email: nullable("string"),
    suspended: { type: "boolean" },
    limits: {
      type: "object",
      properties: { requests_per_minute: nullable("integer"), concurrent_requests: nullable("integer"), tokens_per_month: nullable("integer") },
    },
    created_at: { type: "string", format: "date-time" },
    updated_at: { type: "string", format: "date-time" },
  },
};
const KEY = {
  type: "object",
  description: "A key as listed: never the key or its hash.",
  properties: {
    id: { type: "string" },
    prefix: { type: "string" },
    created_at: { type: "string", format: "date-time" },
    last_used_at: { type: ["string", "null"], format: "date-time" },
    revoked_at: { type: ["string", "null"], format: "date-time" },
    name: { type: ["string", "null"] },
    expires_at: { type: ["string", "null"], format: "date-time", description: "After it, the key is refused (401) like a revoked one." },
    allowed_tiers: { type: ["array", "null"], items: { type: "string" }, description: "The tiers the key may call (null: the plan's)." },
    requests_per_minute: { type: ["integer", "null"], description: "The key's own rate, on top of the account's." },
    monthly_spend_usd: { type: ["number", "null"], description: "The most the key may spend in a UTC month, at the models' prices." },
  },
};
const KEY_CONTROLS = {
  type: "object",
  additionalProperties: false,
  description: "Each field optional; null clears it.",
  properties: {
    name: { type: ["string", "null"], maxLength: 100 },
    expires_at: { type: ["string", "null"], format: "date-time" },
    allowed_tiers: { type: ["array", "null"], items: { enum: ["fast", "normal", "smart", "smart-plus"] }, minItems: 1 },
    requests_per_minute: { type: ["integer", "null"], minimum: 1 },
    monthly_spend_usd: { type: ["number", "null"], exclusiveMinimum: 0 },
  },
};
const TOTALS = { type: "object", properties: Object.fromEntries(USAGE_TOTAL_FIELDS.map((field) => [field, { type: "number" }])) };
const ADMIN_SCHEMAS: Record<string, unknown> = {
  AdminAccount: ACCOUNT,
  AdminKey: KEY,
  UsageTotals: { ...TOTALS, description: "Token sums are billable tokens: cache hits are counted in `cache_hits` only." },
  ListedAccount: {
    type: "object",
    properties: {
      ...ACCOUNT.properties,
      keys: { type: "object", properties: { active: { type: "integer" }, total: { type: "integer" } } },
      last_used_at: { type: ["string", "null"], format: "date-time" },
      month: { type: "object", properties: { tokens: { type: "integer" }, requests: { type: "integer" }, cost_usd: { type: "number" } } },
    },
  },
  AccountPage: { type: "object", properties: { data: { type: "array", items: ref("ListedAccount") }, next_cursor: nullable("string"), month: { type: "string" } } },
  UsageReport: {
    type: "object",
    properties: {
      from: { type: "string", format: "date-time" },
      to: { type: "string", format: "date-time" },
      group_by: { type: "array", items: { enum: [...USAGE_GROUPS] } },
      totals: ref("UsageTotals"),
      data: { type: "array", items: { type: "object", description: "The group columns (`day`, `hour`, `account_id`, `tier`, `model`, `key_id`) and the totals." } },
    },
  },
  MonthlyUsage: {
    type: "object",
    properties: {
      account_id: { type: "string" },
      month: { type: "string" },
      totals: ref("UsageTotals"),
      by_tier: { type: "array", items: { type: "object" } },
      by_model: { type: "array", items: { type: "object" } },
      by_key: { type: "array", items: { type: "object" } },
    },
  },
  AuditEntry: {
    type: "object",
    properties: {
      id: { type: "integer" },
      at: { type: "string", format: "date-time" },
      actor: { type: "string", description: "`token`, or `console session ses_…`." },
      address: nullable("string"),
      action: { type: "string" },
      account_id: nullable("string"),
      key_id: nullable("string"),
      before: {},
      after: {},
    },
  },
  AuditPage: { type: "object", properties: { data: { type: "array", items: ref("AuditEntry") }, next_cursor: nullable("string") } },
  AdminJob: {
    type: "object",
    description: "A Smart+ job: never its token or its files.",
    properties: Object.fromEntries(
      ["id", "account_id", "state", "phase", "task", "model", "effort", "error", "summary", "created_at", "queued_at", "started_at", "finished_at", "expires_at"].map((name) => [name, { type: ["string", "null"] }]),
    ),
  },
  ExplainResult: { type: "object", additionalProperties: true, description: "class, rule, model, effort, source and candidates of the decision." },
};

/** The responses every admin call can give besides its own. */
const COMMON = {
  "401": error("Missing or wrong admin token (or no console session)."),
  "403": error("A console write without its CSRF token."),
  "429": error("Too many wrong admin tokens from this address."),
};

function op(summary: string, ok: Record<string, unknown>, extra: Record<string, unknown> = {}): Record<string, unknown> {
  const { parameters, requestBody, responses, ...rest } = extra as { parameters?: unknown[]; requestBody?: unknown; responses?: Record<string, unknown> };
  return {
    summary,
    tags: ["admin"],
    security: [{ adminBearer: [] }, { consoleSession: [] }],
    ...(parameters ? { parameters } : {}),
    ...(requestBody ? { requestBody } : {}),
    responses: { ...ok, ...COMMON, ...(responses ?? {}) },
    ...rest,
  };
}

const body = (schema: unknown) => ({ required: true, content: json(schema) });
const okJson = (schema: unknown, status = "200", description = "OK") => ({ [status]: { description, content: json(schema) } });
const accountId = path("id", "The account id (`acct_…`).");
const notFound = { "404": error("No such account or key.") };
const badRequest = { "400": error("A field or parameter is wrong; `param` names it.") };
const page = [query("limit", "1 to 200 (default 50).", { type: "integer" }), query("cursor", "`next_cursor` of the page before.")];

/** The admin API's paths and schemas for the OpenAPI document. */
export function adminOpenApi(): { paths: Record<string, unknown>; schemas: Record<string, unknown> } {
  const limitsBody = {
    type: "object",
    properties: { requests_per_minute: nullable("integer"), concurrent_requests: nullable("integer"), tokens_per_month: nullable("integer") },
  };
  return {
    schemas: ADMIN_SCHEMAS,
    paths: {
      "/admin/accounts": {
        get: op("List accounts (newest first) with keys, last use and this month's tokens and cost", okJson(ref("AccountPage")), {
          parameters: [
            ...page,
            query("plan", "Starter, Pro or Enterprise."),
            query("suspended", "true or false.", { type: "boolean" }),
            query("email", "Part of the e-mail address, any case."),
          ],
          responses: badRequest,
        }),
        post: op("Create an account and its first key (shown once)", okJson({ type: "object" }, "201", "The account and its key."), {
          requestBody: body({ type: "object", required: ["plan"], properties: { plan: { enum: ["Starter", "Pro", "Enterprise"] }, default_tier: { type: "string" }, email: nullable("string") } }),
          responses: badRequest,
        }),
      },
      "/admin/accounts/{id}": {
        get: op("One account with its effective limits", okJson(ref("AdminAccount")), { parameters: [accountId], responses: notFound }),
        patch: op("Change plan, default tier or limits (limits: Enterprise only)", okJson(ref("AdminAccount")), {
          parameters: [accountId],
          requestBody: body({ type: "object", properties: { plan: { type: "string" }, default_tier: { type: "string" }, limits: limitsBody } }),
          responses: { ...badRequest, ...notFound },
        }),
      },
      "/admin/accounts/{id}/suspend": { post: op("Suspend: every request answers 403", okJson(ref("AdminAccount")), { parameters: [accountId], responses: notFound }) },
      "/admin/accounts/{id}/unsuspend": { post: op("Lift a suspension", okJson(ref("AdminAccount")), { parameters: [accountId], responses: notFound }) },
      "/admin/accounts/{id}/keys": {
        get: op("The account's keys", okJson({ type: "object", properties: { data: { type: "array", items: ref("AdminKey") } } }), { parameters: [accountId], responses: notFound }),
        post: op("Issue a key (shown once), with its controls", okJson({ type: "object" }, "201", "The key, this once."), {
          parameters: [accountId],
          requestBody: { required: false, content: json(KEY_CONTROLS) },
          responses: { ...badRequest, ...notFound },
        }),
      },
      "/admin/accounts/{id}/usage": {
        get: op("An account's usage in one UTC month: totals, by tier, model and key", okJson(ref("MonthlyUsage")), {
          parameters: [accountId, query("month", "YYYY-MM (default: this month).")],
          responses: { ...badRequest, ...notFound },
        }),
      },
      "/admin/keys/{key_id}": {
        get: op("One key with its controls and this month's requests and cost", okJson(ref("AdminKey")), {
          parameters: [path("key_id", "The key id (`key_…`).")],
          responses: notFound,
        }),
        patch: op("Change a key's controls (applies to its next request)", okJson(ref("AdminKey")), {
          parameters: [path("key_id", "The key id (`key_…`).")],
          requestBody: body(KEY_CONTROLS),
          responses: { ...badRequest, ...notFound },
        }),
      },
      "/admin/keys/{key_id}/revoke": {
        post: op("Revoke a key (idempotent)", okJson({ type: "object", properties: { id: { type: "string" }, revoked_at: { type: "string" } } }), {
          parameters: [path("key_id", "The key id (`key_…`).")],
          responses: notFound,
        }),
      },
      "/admin/usage": {
        get: op("Usage over a time range across accounts: JSON, or CSV with `Accept: text/csv`", {
          "200": { description: "The report.", content: { ...json(ref("UsageReport")), "text/csv": { schema: { type: "string" } } } },
        }, {
          parameters: [
            query("from", "YYYY-MM-DD or an ISO 8601 time (default: the start of this month, UTC)."),
            query("to", "YYYY-MM-DD (that day included) or an ISO 8601 time (excluded); default now."),
            query("group_by", `One or more of ${USAGE_GROUPS.join(", ")}, comma-separated (default day).`),
            query("account", "Only this account."),
            query("key", "Only this key."),
            query("format", "`csv` for CSV without the Accept header."),
          ],
          responses: { ...badRequest, "404": error("No such key.") },
        }),
      },
      "/admin/audit": {
        get: op("The audit log of admin writes, newest first", okJson(ref("AuditPage")), {
          parameters: [...page, query("account", "Only entries about this account."), query("action", "Only this action, e.g. `key.revoke`.")],
          responses: badRequest,
        }),
      },
      "/admin/smartplus/jobs": {
        get: op("Smart+ jobs, newest first, with state, times and sizes", okJson({ type: "object", properties: { data: { type: "array", items: ref("AdminJob") }, next_cursor: nullable("string") } }), {
          parameters: [...page, query("state", "Only jobs in this state."), query("account", "Only this account's jobs.")],
          responses: badRequest,
        }),
      },
      "/admin/smartplus/jobs/{job_id}": {
        get: op("One Smart+ job", okJson(ref("AdminJob")), { parameters: [path("job_id", "The job id (`job_…`).")], responses: { "404": error("No such job.") } }),
      },
      "/console": {
        get: { summary: "The operator console (HTML; its assets are served by the gateway too)", tags: ["console"], responses: { "200": { description: "The page.", content: { "text/html": { schema: { type: "string" } } } }, "404": { description: "No admin token set." } } },
      },
      "/console/sign-in": {
        get: { summary: "The sign-in form", tags: ["console"], responses: { "200": { description: "The form (no script).", content: { "text/html": { schema: { type: "string" } } } } } },
        post: {
          summary: "Sign in with the admin token: sets the session cookie (HttpOnly, SameSite=Strict, Secure over HTTPS, 12 h)",
          tags: ["console"],
          requestBody: { required: true, content: { "application/x-www-form-urlencoded": { schema: { type: "object", required: ["token"], properties: { token: { type: "string" } } } } } },
          responses: {
            "303": { description: "Signed in: on to /console." },
            "401": { description: "Not the admin token (the form again)." },
            "403": { description: "Posted from another site." },
            "429": { description: "Too many wrong tokens from this address." },
          },
        },
      },
      "/console/sign-out": {
        post: { summary: "End the session (needs its x-csrf-token)", tags: ["console"], security: [{ consoleSession: [] }], responses: { "204": { description: "Signed out; the cookie is cleared." }, ...COMMON } },
      },
      "/console/api/session": {
        get: {
          summary: "The session's CSRF token, for the page's writes",
          tags: ["console"],
          security: [{ consoleSession: [] }],
          responses: { ...okJson({ type: "object", properties: { id: { type: "string" }, csrf_token: { type: "string" } } }), "401": error("No session.") },
        },
      },
      "/console/api/metrics": {
        get: op("The gateway's metrics as the Overview reads them: cumulative request counts by tier, model and status, latency and TTFB histograms by tier, cache lookups, breaker states, usage-writer backlog", okJson({ type: "object" })),
      },
      "/admin/route/explain": {
        post: op("The routing decision for a request body, without calling an upstream", okJson(ref("ExplainResult")), {
          requestBody: body({ type: "object", required: ["body"], properties: { format: { enum: ["messages", "chat", "responses"] }, body: { type: "object" }, account: { type: "string" }, session_id: { type: "string" } } }),
          responses: { ...badRequest, "404": error("No such account.") },
        }),
      },
      "/admin/config/reload": {
        post: op("Reload the config file (providers, models, tiers, routing)", okJson(ref("ReloadResult"), "200", "The new config is in use."), {
          responses: { "400": error("The file was rejected; the old config stays.") },
        }),
      },
    },
  };
}
