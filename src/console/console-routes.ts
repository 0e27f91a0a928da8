import { Elysia } from "elysia";
import type { Registry } from "prom-client";
import consolePage from "./app/index.html";
import { adminError } from "../ops/admin-error.ts";
import type { AddressSource } from "../ops/client-address.ts";
import type { AdminGate } from "../ops/create-admin-gate.ts";
import { buildMetricsSnapshot } from "./build-metrics-snapshot.ts";
import type { SessionStore } from "./create-session-store.ts";
import { renderSignInPage, SIGN_IN_STYLE_HASH } from "./render-sign-in-page.ts";
import { readRequestUrl } from "../pipeline/read-request-url.ts";

export const SESSION_COOKIE = "routelane_console";
/** How long a console session lasts; the cookie ends with it. */
export const SESSION_LIFETIME_MS = 12 * 3600 * 1000;
const MAX_FORM_BYTES = 4096;

export interface ConsoleRoutesDeps {
  readonly gate: AdminGate;
  readonly sessions: SessionStore;
  readonly registry: Registry;
  /** The configured model names (a model whose breaker never moved is closed). */
  readonly models: () => readonly string[];
}

type Context = { request: Request; server: AddressSource | null };

/** The session cookie's value on a request, if any. */
export function sessionCookieOf(request: Request): string | undefined {
  for (const part of (request.headers.get("cookie") ?? "").split(";")) {
    const [name, ...value] = part.trim().split("=");
    if (name === SESSION_COOKIE) return value.join("=");
  }
  return undefined;
}

/** HTTPS as the client sees it: the request itself, or the proxy in front saying so (which only makes the cookie stricter). */
const isHttps = (request: Request): boolean =>
  readRequestUrl(request).protocol === "https:" || request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim() === "https";

function cookie(request: Request, value: string, maxAgeSeconds: number): string {
  return `${SESSION_COOKIE}=${value}; Path=/; HttpOnly; SameSite=Strict; Max-Age=${maxAgeSeconds}${isHttps(request) ? "; Secure" : ""}`;
}

const PAGE_HEADERS = {
  "content-type": "text/html; charset=utf-8",
  "content-security-policy": `default-src 'none'; img-src data:; style-src '${SIGN_IN_STYLE_HASH}'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'`,
  "x-frame-options": "DENY",
  // Not no-referrer: with it a browser sends `Origin: null` on the form post, which the origin check refuses.
  "referrer-policy": "same-origin",
  "x-content-type-options": "nosniff",
  "cache-control": "no-store",
};

const signInPage = (status: number, message?: string, headers: Record<string, string> = {}): Response =>
  new Response(renderSignInPage(message), { status, headers: { ...PAGE_HEADERS, ...headers } });

/** A browser posting from another site names it; the sign-in form only takes posts from its own page. */
function fromOwnOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null || origin === "null") return origin === null;
  try {
    return new URL(origin).host === request.headers.get("host");
  } catch {
    return false;
  }
}

/** The token of a sign-in form body, or undefined when the body is not one. */
async function tokenOfForm(request: Request): Promise<string | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "0");
  if (declared > MAX_FORM_BYTES) return undefined;
  const text = await request.text();
  if (text.length > MAX_FORM_BYTES) return undefined;
  return new URLSearchParams(text).get("token") ?? undefined;
}

/**
 * The operator console at /console: its page (bundled by Bun from `app/`, every asset served from
 * here), the sign-in form, sign-out, the session's CSRF token for the page, and the metrics the
 * Overview charts. The page's data comes from the admin API, which takes the session cookie.
 */
export function consoleRoutes(deps: ConsoleRoutesDeps): Elysia {
  const { gate, sessions } = deps;
  const noBody = { parse: "none" as const };
  return new Elysia()
    .get("/console", consolePage)
    .get("/console/sign-in", () => signInPage(200), noBody)
    .post(
      "/console/sign-in",
      async ({ request, server }: Context) => {
        if (!fromOwnOrigin(request)) return signInPage(403, "Sign in from the console's own page.");
        const address = gate.addressOf(request, server);
        const token = await tokenOfForm(request);
        const verdict = gate.signIn(token ?? "", address);
        if (verdict !== true) {
          if (verdict.status === 429) return signInPage(429, "Too many wrong tokens from this address. Try again in a minute.", { "retry-after": verdict.headers.get("retry-after") ?? "60" });
          return signInPage(401, "That is not the admin token.");
        }
        const session = await sessions.create(address);
        return new Response(null, {
          status: 303,
          headers: { location: "/console", "set-cookie": cookie(request, session.secret, Math.floor(SESSION_LIFETIME_MS / 1000)), "cache-control": "no-store" },
        });
      },
      noBody,
    )
    .post(
      "/console/sign-out",
      async ({ request, server }: Context) => {
        const actor = await gate.check(request, gate.addressOf(request, server));
        if (actor instanceof Response) return actor;
        const secret = sessionCookieOf(request);
        if (secret !== undefined) await sessions.remove(secret);
        return new Response(null, { status: 204, headers: { "set-cookie": cookie(request, "", 0) } });
      },
      noBody,
    )
    .get(
      "/console/api/session",
      async ({ request }: Context) => {
        const secret = sessionCookieOf(request);
        const session = secret === undefined ? null : await sessions.find(secret);
        if (!session) return adminError(401, "authentication_error", "no console session; sign in at /console/sign-in");
        return Response.json({ id: session.id, csrf_token: session.csrfToken }, { headers: { "cache-control": "no-store" } });
      },
      noBody,
    )
    .get(
      "/console/api/metrics",
      async ({ request, server }: Context) => {
        const actor = await gate.check(request, gate.addressOf(request, server));
        if (actor instanceof Response) return actor;
        const snapshot = await buildMetricsSnapshot(deps.registry);
        const known = new Map(snapshot.breakers.map((b) => [b.model, b.state]));
        const breakers = deps.models().map((model) => ({ model, state: known.get(model) ?? "closed" }));
        return Response.json({ ...snapshot, breakers }, { headers: { "cache-control": "no-store" } });
      },
      noBody,
    ) as unknown as Elysia;
}
