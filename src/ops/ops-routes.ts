import { timingSafeEqual } from "node:crypto";
import { Elysia } from "elysia";
import type { ReadinessCheck } from "./check-readiness.ts";
import type { GatewayMetrics } from "./create-metrics.ts";
import { renderDocsPage } from "./render-docs-page.ts";

export interface OpsRoutesOptions {
  readonly readiness: ReadinessCheck;
  readonly metrics: GatewayMetrics;
  readonly metricsToken: string | undefined;
  readonly adminToken: string | undefined;
  readonly openApi: Record<string, unknown>;
  /** Reloads the config file; throws with the reason when the file is rejected. */
  reload(): { tiers: string[]; models: string[] };
}

function bearerMatches(request: Request, token: string): boolean {
  const header = request.headers.get("authorization") ?? "";
  const given = Buffer.from(header.startsWith("Bearer ") ? header.slice(7).trim() : "");
  const expected = Buffer.from(token);
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const openAiError = (status: number, type: string, message: string, code: string | null = null): Response =>
  Response.json({ error: { message, type, param: null, code } }, { status });

/** Health, readiness, metrics, the API document and its page, and the config reload. */
export function opsRoutes(options: OpsRoutesOptions): Elysia {
  const openApiText = JSON.stringify(options.openApi);
  const docsPage = renderDocsPage(options.openApi);
  const app = new Elysia({ name: "ops" })
    .get("/healthz", () => Response.json({ status: "ok" }))
    .get("/readyz", async () => {
      const result = await options.readiness.check();
      if (result.ready && result.degraded) return Response.json({ status: "degraded", degraded: result.degraded });
      if (result.ready) return Response.json({ status: "ready" });
      return Response.json({ status: "unavailable", failing: result.failing, reason: result.reason }, { status: 503 });
    })
    .get("/metrics", async ({ request }) => {
      if (options.metricsToken !== undefined && !bearerMatches(request, options.metricsToken)) {
        return new Response("metrics need Authorization: Bearer $ROUTELANE_METRICS_TOKEN\n", { status: 401, headers: { "www-authenticate": "Bearer" } });
      }
      return new Response(await options.metrics.render(), { headers: { "content-type": options.metrics.registry.contentType } });
    })
    .get("/openapi.json", () => new Response(openApiText, { headers: { "content-type": "application/json" } }))
    .get("/docs", () => new Response(docsPage, { headers: { "content-type": "text/html; charset=utf-8" } }));
  const adminToken = options.adminToken;
  if (!adminToken) return app as unknown as Elysia;
  return app.post(
    "/admin/config/reload",
    ({ request }) => {
      if (!bearerMatches(request, adminToken)) return openAiError(401, "authentication_error", "admin calls need Authorization: Bearer $ROUTELANE_ADMIN_TOKEN", "invalid_admin_token");
      try {
        return Response.json({ reloaded: true, ...options.reload() });
      } catch (error) {
        return openAiError(400, "invalid_request_error", `config not reloaded, the old one stays: ${error instanceof Error ? error.message : String(error)}`, "invalid_config");
      }
    },
    { parse: "none" },
  ) as unknown as Elysia;
}
