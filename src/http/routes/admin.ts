import { Value, ValueErrorType } from "@sinclair/typebox/value";
import type { TLiteral, TUnion } from "@sinclair/typebox";
import { Elysia, t, type TSchema } from "elysia";
import type { Account, AccountStore, KeyInfo } from "../../accounts/account-store.ts";
import { PLANS } from "../../accounts/plans.ts";
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

/** What a field must be, said once per field so every failure names it the same way. */
const FIELD_RULES: Record<string, string> = {
  plan: `must be one of ${PLANS.join(", ")}`,
  default_tier: `must be one of ${TIERS.join(", ")}`,
  email: "must be an e-mail address or null",
  limits: "must be an object with requests_per_minute, concurrent_requests and/or tokens_per_month",
  "limits.requests_per_minute": "must be a positive integer or null (no cap)",
  "limits.concurrent_requests": "must be a positive integer or null (no cap)",
  "limits.tokens_per_month": "must be a positive integer or null (no cap)",
};

const badRequest = (message: string, param: string | null = null) => adminError(400, "invalid_request_error", message, { param });
const notFound = (message: string) => adminError(404, "not_found_error", message);

/** Validates with TypeBox; the first failure becomes one message that starts with the field's name. */
function validate<S extends TSchema>(schema: S, value: unknown): { ok: true; value: S["static"] } | { ok: false; response: Response } {
  if (Value.Check(schema, value)) return { ok: true, value: value as S["static"] };
  const first = Value.Errors(schema, value).First();
  if (!first || first.path === "") return { ok: false, response: badRequest("body: must be a JSON object") };
  const field = first.path.slice(1).split("/").join(".");
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
    created_at: iso(key.createdAt),
    last_used_at: iso(key.lastUsedAt),
    revoked_at: iso(key.revokedAt),
  };
}

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
      guard(async (_request, { id = "" }, by) => {
        const key = await store.issueKey(id, by);
        if (!key) return accountNotFound(id);
        return Response.json({ id: key.id, key: key.key, prefix: key.prefix, created_at: iso(key.createdAt) }, { status: 201 });
      }),
      noBody,
    )
    .get(
      "/admin/accounts/:id/keys",
      guard(async (_request, { id = "" }) => {
        const keys = await store.listKeys(id);
        return keys ? Response.json({ data: keys.map(renderKey) }) : accountNotFound(id);
      }),
      noBody,
    )
    .get(
      "/admin/accounts/:id/usage",
      guard(async (request, { id = "" }) => {
        const month = new URL(request.url).searchParams.get("month") ?? monthWindow(Date.now()).key;
        if (!parseMonth(month)) return badRequest("month: must be a month as YYYY-MM");
        const account = await store.getAccount(id);
        if (!account) return accountNotFound(id);
        return Response.json(await queryMonthlyUsage(deps.database, id, month));
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
      guard(async (request) => notFound(`no such admin endpoint: ${request.method} ${new URL(request.url).pathname}`)),
      noBody,
    );
  // One plain type for both cases (with and without routes), so callers can `.use()` either.
  return routes as unknown as Elysia;
}
