import { Value, ValueErrorType } from "@sinclair/typebox/value";
import type { TLiteral, TUnion } from "@sinclair/typebox";
import { Elysia, t, type TSchema } from "elysia";
import type { Account, AccountStore, KeyControls, KeyInfo } from "../../accounts/account-store.ts";
import { queryKeySpend, type KeySpend } from "../../usage/query-key-spend.ts";
import { PLANS } from "../../canonical/plans.ts";
import { TIERS } from "../../canonical/tier.ts";
import type { Database } from "../../db/client.ts";
import { monthWindow } from "../../limits/month-window.ts";
import { exceedsJsonDepth, MAX_JSON_DEPTH } from "../../pipeline/exceeds-json-depth.ts";
import { adminError } from "../../ops/admin-error.ts";
import { createAdminGate, type AdminGate } from "../../ops/create-admin-gate.ts";
import { adminFleetRoutes } from "./admin-fleet.ts";
import { adminGuard } from "./admin-guard.ts";
import { parseMonth, queryMonthlyUsage } from "../../usage/query-monthly-usage.ts";
import type { Routing } from "../../routing/create-routing.ts";
import { adminExplainRoutes } from "./admin-explain.ts";
import { readRequestUrl } from "../../pipeline/read-request-url.ts";

export interface AdminRoutesDeps {
  readonly database: Database;
  /** ROUTELANE_ADMIN_TOKEN; unset or empty → no /admin route exists at all (404 from the app). */
  readonly adminToken: string | undefined;
  /** The door shared with the other operator routes; made from `adminToken` when absent. */
  readonly gate?: AdminGate | undefined;
  readonly accounts: AccountStore;
  /** The routing in use (a reload replaces it), for explain. */
  readonly routing?: (() => Routing) | undefined;
}

const literals = <T extends readonly string[]>(values: T) =>
  t.Union(values.map((v) => t.Literal(v))) as unknown as TUnion<TLiteral<T[number]>[]>;
const INT32_MAX = 2_147_483_647;
const limit = (maximum: number) => t.Union([t.Integer({ minimum: 1, maximum }), t.Null()]);

const CreateAccountBody = t.Object(
  {
    plan: literals(PLANS),
    default_tier: t.Optional(literals(TIERS)),
    email: t.Optional(t.Union([t.String({ pattern: "^[^@\\s]+@[^@\\s]+$", maxLength: 320 }), t.Null()])),
  },
  { additionalProperties: false },
);

const UpdateAccountBody = t.Object(
  {
    plan: t.Optional(literals(PLANS)),
    default_tier: t.Optional(literals(TIERS)),
    limits: t.Optional(
      t.Object(
        {
          requests_per_minute: t.Optional(limit(INT32_MAX)),
          concurrent_requests: t.Optional(limit(INT32_MAX)),
          tokens_per_month: t.Optional(limit(Number.MAX_SAFE_INTEGER)),
        },
        { additionalProperties: false },
      ),
    ),
  },
  { additionalProperties: false },
);

const KeyControlsBody = t.Object(
  {
    name: t.Optional(t.Union([t.String({ minLength: 1, maxLength: 100 }), t.Null()])),
    expires_at: t.Optional(t.Union([t.String({ maxLength: 40 }), t.Null()])),
    allowed_tiers: t.Optional(t.Union([t.Array(literals(TIERS), { minItems: 1, maxItems: TIERS.length }), t.Null()])),
    requests_per_minute: t.Optional(limit(INT32_MAX)),
    monthly_spend_usd: t.Optional(t.Union([t.Number({ exclusiveMinimum: 0, maximum: 1e9 }), t.Null()])),
  },
  { additionalProperties: false },
);

/** What a field must be, said once per field so every failure names it the same way. */
const FIELD_RULES: Record<string, string> = {
  plan: `must be one of ${PLANS.join(", ")}`,
  default_tier: `must be one of ${TIERS.join(", ")}`,
  email: "must be an e-mail address or null",
  limits: "must be an object with requests_per_minute, concurrent_requests and/or tokens_per_month",
  "limits.requests_per_minute": "must be a positive integer or null (no cap)",
  "limits.concurrent_requests": "must be a positive integer or null (no cap)",
  "limits.tokens_per_month": "must be a positive integer or null (no cap)",
  name: "must be a string of 1 to 100 characters or null",
  expires_at: "must be an ISO 8601 time with its zone, or null (never)",
  allowed_tiers: `must be a non-empty list of tiers (${TIERS.join(", ")}) or null (the plan's)`,
  requests_per_minute: "must be a positive integer or null (no cap)",
  monthly_spend_usd: "must be a positive number of USD or null (no cap)",
};

/** The key controls of a checked body, as the store takes them; a bad `expires_at` is a 400. */
function keyControls(body: typeof KeyControlsBody.static): KeyControls | Response {
  let expiresAt: Date | null | undefined;
  if (body.expires_at === null) expiresAt = null;
  else if (body.expires_at !== undefined) {
    const at = /^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d{1,6})?)?(Z|[+-]\d\d:\d\d)$/.test(body.expires_at) ? Date.parse(body.expires_at) : Number.NaN;
    if (Number.isNaN(at)) return badRequest(`expires_at: ${FIELD_RULES.expires_at}`, "expires_at");
    expiresAt = new Date(at);
  }
  return {
    name: body.name,
    expiresAt,
    allowedTiers: body.allowed_tiers,
    requestsPerMinute: body.requests_per_minute,
    monthlySpendUsd: body.monthly_spend_usd,
  };
}

const badRequest = (message: string, param: string | null = null) => adminError(400, "invalid_request_error", message, { param });
const notFound = (message: string) => adminError(404, "not_found_error", message);

/** Validates with TypeBox; the first failure becomes one message that starts with the field's name. */
function validate<S extends TSchema>(schema: S, value: unknown): { ok: true; value: S["static"] } | { ok: false; response: Response } {
  if (Value.Check(schema, value)) return { ok: true, value: value as S["static"] };
  const first = Value.Errors(schema, value).First();
  if (!first || first.path === "") return { ok: false, response: badRequest("body: must be a JSON object") };
  // An array item's failure is said of the array.
  const field = first.path.slice(1).split("/").filter((part) => !/^\d+$/.test(part)).join(".");
  let message: string;
  if (first.type === ValueErrorType.ObjectAdditionalProperties) message = `${field}: unknown field`;
  else if (first.type === ValueErrorType.ObjectRequiredProperty) message = `${field}: is required`;
  else message = `${field}: ${FIELD_RULES[field] ?? first.message}`;
  return { ok: false, response: badRequest(message, field) };
}

async function readJson(request: Request, required: boolean): Promise<{ ok: true; value: unknown } | { ok: false; response: Response }> {
  const text = await request.text();
  if (text.trim() === "") return required ? { ok: false, response: badRequest("body: a JSON object is required") } : { ok: true, value: {} };
  if (exceedsJsonDepth(text)) return { ok: false, response: badRequest(`body: nested deeper than the limit of ${MAX_JSON_DEPTH} levels`) };
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false, response: badRequest("body: not valid JSON") };
  }
}

const iso = (date: Date | null) => (date ? date.toISOString() : null);

function renderAccount(account: Account) {
  return {
    id: account.id,
    plan: account.plan,
    default_tier: account.defaultTier,
    email: account.email,
    suspended: account.suspended,
    limits: {
      requests_per_minute: account.limits.requestsPerMinute,
      concurrent_requests: account.limits.concurrentRequests,
      tokens_per_month: account.limits.tokensPerMonth,
    },
    created_at: account.createdAt.toISOString(),
    updated_at: account.updatedAt.toISOString(),
  };
}

function renderKey(key: KeyInfo) {
  return {
    id: key.id,
    prefix: key.prefix,
    name: key.name,
    created_at: iso(key.createdAt),
    last_used_at: iso(key.lastUsedAt),
    revoked_at: iso(key.revokedAt),
    expires_at: iso(key.expiresAt),
    allowed_tiers: key.allowedTiers,
    requests_per_minute: key.requestsPerMinute,
    monthly_spend_usd: key.monthlySpendUsd,
  };
}

const spendOf = (spend: KeySpend | undefined) => ({ requests: spend?.requests ?? 0, cost_usd: Math.round((spend?.costUsd ?? 0) * 1e6) / 1e6 });

/**
 * The operator API under /admin. Every answer, errors included, is a Response built here, so an
 * app-wide error handler cannot reshape it.
 */
export function adminRoutes(deps: AdminRoutesDeps): Elysia {
  const app = new Elysia();
  if (!deps.adminToken) return app;
  const gate = deps.gate ?? createAdminGate({ token: deps.adminToken });
  if (deps.routing) app.use(adminExplainRoutes(gate, { routing: deps.routing, accounts: deps.accounts }));
  const store = deps.accounts;

  const guard = adminGuard(gate);
  app.use(adminFleetRoutes(guard, deps.database));
  const noBody = { parse: "none" as const };
  const accountNotFound = (id: string) => notFound(`account ${id} not found`);

  const routes = app
    .post(
      "/admin/accounts",
      guard(async (request, _params, by) => {
        const body = await readJson(request, true);
        if (!body.ok) return body.response;
        const input = validate(CreateAccountBody, body.value);
        if (!input.ok) return input.response;
        const { account, key } = await store.createAccount(
          { plan: input.value.plan, defaultTier: input.value.default_tier, email: input.value.email ?? null },
          by,
        );
        return Response.json(
          { id: account.id, plan: account.plan, default_tier: account.defaultTier, key: key.key, key_id: key.id, key_prefix: key.prefix },
          { status: 201 },
        );
      }),
      noBody,
    )
    .get(
      "/admin/accounts/:id",
      guard(async (_request, { id = "" }) => {
        const account = await store.getAccount(id);
        return account ? Response.json(renderAccount(account)) : accountNotFound(id);
      }),
      noBody,
    )
    .patch(
      "/admin/accounts/:id",
      guard(async (request, { id = "" }, by) => {
        const body = await readJson(request, true);
        if (!body.ok) return body.response;
        const input = validate(UpdateAccountBody, body.value);
        if (!input.ok) return input.response;
        const { plan, default_tier, limits } = input.value;
        const account = await store.updateAccount(id, {
          plan,
          defaultTier: default_tier,
          limits: limits && {
            requestsPerMinute: limits.requests_per_minute,
            concurrentRequests: limits.concurrent_requests,
            tokensPerMonth: limits.tokens_per_month,
          },
        }, by);
        return account ? Response.json(renderAccount(account)) : accountNotFound(id);
      }),
      noBody,
    )
    .post(
      "/admin/accounts/:id/suspend",
      guard(async (_request, { id = "" }, by) => {
        const account = await store.setSuspended(id, true, by);
        return account ? Response.json(renderAccount(account)) : accountNotFound(id);
      }),
      noBody,
    )
    .post(
      "/admin/accounts/:id/unsuspend",
      guard(async (_request, { id = "" }, by) => {
        const account = await store.setSuspended(id, false, by);
        return account ? Response.json(renderAccount(account)) : accountNotFound(id);
      }),
      noBody,
    )
    .post(
      "/admin/accounts/:id/keys",
      guard(async (request, { id = "" }, by) => {
        const body = await readJson(request, false);
        if (!body.ok) return body.response;
        const input = validate(KeyControlsBody, body.value);
        if (!input.ok) return input.response;
        const controls = keyControls(input.value);
        if (controls instanceof Response) return controls;
        const key = await store.issueKey(id, controls, by);
        if (!key) return accountNotFound(id);
        const info = await store.getKey(key.id);
        return Response.json({ ...(info ? renderKey(info) : {}), id: key.id, key: key.key, prefix: key.prefix, created_at: iso(key.createdAt) }, { status: 201 });
      }),
      noBody,
    )
    .get(
      "/admin/accounts/:id/keys",
      guard(async (_request, { id = "" }) => {
        const keys = await store.listKeys(id);
        if (!keys) return accountNotFound(id);
        const month = monthWindow(Date.now());
        const spend = await queryKeySpend(deps.database, id, new Date(month.start));
        return Response.json({ month: month.key, data: keys.map((key) => ({ ...renderKey(key), month: spendOf(spend.get(key.id)) })) });
      }),
      noBody,
    )
    .get(
      "/admin/accounts/:id/usage",
      guard(async (request, { id = "" }) => {
        const month = readRequestUrl(request).searchParams.get("month") ?? monthWindow(Date.now()).key;
        if (!parseMonth(month)) return badRequest("month: must be a month as YYYY-MM");
        const account = await store.getAccount(id);
        if (!account) return accountNotFound(id);
        return Response.json(await queryMonthlyUsage(deps.database, id, month));
      }),
      noBody,
    )
    .get(
      "/admin/keys/:key_id",
      guard(async (_request, { key_id = "" }) => {
        const key = await store.getKey(key_id);
        if (!key) return notFound(`key ${key_id} not found`);
        const month = monthWindow(Date.now());
        const spend = await queryKeySpend(deps.database, key.accountId, new Date(month.start), key.id);
        return Response.json({ ...renderKey(key), account_id: key.accountId, month: { month: month.key, ...spendOf(spend.get(key.id)) } });
      }),
      noBody,
    )
    .patch(
      "/admin/keys/:key_id",
      guard(async (request, { key_id = "" }, by) => {
        const body = await readJson(request, true);
        if (!body.ok) return body.response;
        const input = validate(KeyControlsBody, body.value);
        if (!input.ok) return input.response;
        const controls = keyControls(input.value);
        if (controls instanceof Response) return controls;
        const key = await store.updateKey(key_id, controls, by);
        return key ? Response.json(renderKey(key)) : notFound(`key ${key_id} not found`);
      }),
      noBody,
    )
    .post(
      "/admin/keys/:key_id/revoke",
      guard(async (_request, { key_id = "" }, by) => {
        const revoked = await store.revokeKey(key_id, by);
        if (!revoked) return notFound(`key ${key_id} not found`);
        return Response.json({ id: revoked.id, revoked_at: iso(revoked.revokedAt) });
      }),
      noBody,
    )
    .all(
      "/admin",
      guard(async () => notFound("no such admin endpoint")),
      noBody,
    )
    .all(
      "/admin/*",
      guard(async (request) => notFound(`no such admin endpoint: ${request.method} ${readRequestUrl(request).pathname}`)),
      noBody,
    );
  // One plain type for both cases (with and without routes), so callers can `.use()` either.
  return routes as unknown as Elysia;
}
