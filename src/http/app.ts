import type { Server } from "bun";
import { Elysia, type AnyElysia } from "elysia";
import pkg from "../../package.json" with { type: "json" };
import { NOOP_SPAN, type TraceSpan } from "../canonical/trace-span.ts";
import type { WireFormat } from "../canonical/wire-format.ts";
import { fail } from "../canonical/gateway-error.ts";
import type { GatewayDeps } from "../pipeline/gateway-deps.ts";
import { handleChatRequest, type ClientConnection } from "../pipeline/handle-chat-request.ts";
import { handleCountTokens, type CountTokensOptions } from "../pipeline/handle-count-tokens.ts";
import { handleGetModel, handleListModels } from "../pipeline/handle-models.ts";
import { newRequestId } from "../pipeline/new-request-id.ts";
import { formatOfHeaders, renderError } from "../pipeline/render-error.ts";
import { NOOP_TRACING, type Tracing } from "../ops/start-tracing.ts";
import { createInFlightTracker, type InFlightTracker } from "../ops/track-in-flight.ts";
import { readRequestUrl } from "../pipeline/read-request-url.ts";
import { PUBLIC_ROUTES } from "./public-routes.ts";

function formatOfPath(path: string, headers: Headers): WireFormat {
  // The handoff endpoints answer in the Messages-style error shape.
  if (path.startsWith("/v1/messages") || path.startsWith("/v1/handoff")) return "messages";
  if (path.startsWith("/v1/chat") || path.startsWith("/v1/responses")) return "chat";
  return formatOfHeaders(headers);
}

/** 404 for an unknown path, 405 (with `allow`) for a known one called with another method. */
function unmatched(request: Request): Response {
  const path = readRequestUrl(request).pathname;
  const route = PUBLIC_ROUTES.find(([pattern]) => pattern.test(path));
  const error = route
    ? fail("MethodNotAllowed", `method ${request.method} is not allowed on ${path}; use ${route[1].join(" or ")}`, { headers: { allow: route[1].join(", ") } })
    : fail("NoSuchEndpoint", `no such endpoint: ${request.method} ${path}`);
  return renderError(error, formatOfPath(path, request.headers), newRequestId());
}

const SERVICE = { name: "routelane", version: pkg.version };

/** What the HTTP layer adds around each pipeline call: the in-flight stream count and the request span. */
export interface AppOps {
  readonly inFlight: InFlightTracker;
  readonly tracing: Tracing;
}

type Handler = (request: Request, span: TraceSpan, connection: ClientConnection) => Promise<Response>;

/** The request's connection on the Bun server (absent outside one, as in tests that call the app directly): one object a request, no closure. */
class ServerConnection implements ClientConnection {
  constructor(
    private readonly server: Server<unknown> | null,
    private readonly request: Request,
  ) {}

  idleTimeout(seconds: number): void {
    this.server?.timeout(this.request, seconds);
  }
}

const connectionOf = (server: Server<unknown> | null, request: Request): ClientConnection => new ServerConnection(server, request);

/** Notes a stream's start (in-flight gauge) and opens the request span when tracing is on. */
function served(ops: AppOps, name: string, handler: Handler): (ctx: { request: Request; server: Server<unknown> | null }) => Promise<Response> {
  if (!ops.tracing.enabled) {
    return async ({ request, server }) => {
      const response = await handler(request, NOOP_SPAN, connectionOf(server, request));
      ops.inFlight.responded(response);
      return response;
    };
  }
  return async ({ request, server }) => {
    const span = ops.tracing.startSpan(name, { "http.request.method": request.method });
    try {
      const response = await handler(request, span, connectionOf(server, request));
      ops.inFlight.responded(response);
      span.setAttributes({
        "http.response.status_code": response.status,
        "routelane.stream": (response.headers.get("content-type") ?? "").startsWith("text/event-stream"),
        "routelane.tier": response.headers.get("x-router-tier") ?? undefined,
        "routelane.model": response.headers.get("x-router-model") ?? undefined,
        "routelane.request_id": response.headers.get("x-router-request-id") ?? undefined,
      });
      if (response.status >= 500) span.fail(`status ${response.status}`);
      return response;
    } catch (error) {
      span.fail("handler failed");
      throw error;
    } finally {
      span.end();
    }
  };
}

/**
 * The HTTP surface. Routes only hand the raw request to one pipeline function each: the pipeline
 * reads the body itself so that authentication comes first and every error has the caller's shape.
 */
export function createApp(
  deps: GatewayDeps,
  plugins: readonly AnyElysia[] = [],
  ops: AppOps = { inFlight: createInFlightTracker(), tracing: NOOP_TRACING },
  counting: CountTokensOptions = {},
): AnyElysia {
  const app = new Elysia({ normalize: false })
    .onError(({ code, request, error }) => {
      if (code === "NOT_FOUND") return unmatched(request);
      const path = readRequestUrl(request).pathname;
      return renderError(error, formatOfPath(path, request.headers), newRequestId());
    })
    .get("/", () => Response.json(SERVICE))
    .head("/", () => new Response(null, { headers: { "content-type": "application/json" } }))
    .post("/v1/messages", served(ops, "POST /v1/messages", (request, span, connection) => handleChatRequest("messages", request, deps, span, connection)), { parse: "none" })
    .post("/v1/messages/count_tokens", served(ops, "POST /v1/messages/count_tokens", (request) => handleCountTokens(request, deps, counting)), { parse: "none" })
    .post("/v1/chat/completions", served(ops, "POST /v1/chat/completions", (request, span, connection) => handleChatRequest("chat", request, deps, span, connection)), { parse: "none" })
    .post("/v1/responses", served(ops, "POST /v1/responses", (request, span, connection) => handleChatRequest("responses", request, deps, span, connection)), { parse: "none" })
    .get("/v1/models", ({ request }) => handleListModels(request, deps))
    .get("/v1/models/:id", ({ request, params }) => handleGetModel(request, params.id, deps));
  for (const plugin of plugins) app.use(plugin);
  return app;
}
