import { Elysia } from "elysia";
import { adminError } from "./admin-error.ts";
import type { AddressSource } from "./client-address.ts";
import { describeActor, type AdminGate } from "./create-admin-gate.ts";
import type { AuditActor } from "../accounts/record-audit.ts";
import { createTokenCheck } from "./create-token-check.ts";
import type { ReadinessCheck } from "./check-readiness.ts";
import type { GatewayMetrics } from "./create-metrics.ts";
import { renderDocsPage } from "./render-docs-page.ts";

export interface OpsRoutesOptions {
  readonly readiness: ReadinessCheck;
  readonly metrics: GatewayMetrics;
  readonly metricsToken: string | undefined;
  /** The operator routes' door; absent (no ROUTELANE_ADMIN_TOKEN) → no reload route. */
  readonly adminGate: AdminGate | undefined;
  readonly openApi: Record<string, unknown>;
  /** Reloads the config file (recording who asked in the audit log); throws with the reason when the file is rejected. */
  reload(by: AuditActor): Promise<{ tiers: string[]; models: string[] }>;
}

/** Health, readiness, metrics, the API document and its page, and the config reload. */
export function opsRoutes(options: OpsRoutesOptions): Elysia {
  const openApiText = JSON.stringify(options.openApi);
  const docsPage = renderDocsPage(options.openApi);
  const metricsCheck = options.metricsToken === undefined ? undefined : createTokenCheck(options.metricsToken);
  const app = new Elysia({ name: "ops" })
    .get("/healthz", () => Response.json({ status: "ok" }))
    .get("/readyz", async () => {
      const result = await options.readiness.check();
      if (result.ready && result.degraded) return Response.json({ status: "degraded", degraded: result.degraded });
      if (result.ready) return Response.json({ status: "ready" });
      return Response.json({ status: "unavailable", failing: result.failing, reason: result.reason }, { status: 503 });
    })
    .get("/metrics", async ({ request }) => {
      if (metricsCheck && !metricsCheck.authorizes(request)) {
        return adminError(401, "authentication_error", "invalid or missing metrics token (Authorization: Bearer $ROUTELANE_METRICS_TOKEN)", {
          headers: { "www-authenticate": "Bearer" },
        });
      }
      return new Response(await options.metrics.render(), { headers: { "content-type": options.metrics.registry.contentType } });
    })
    .get("/openapi.json", () => new Response(openApiText, { headers: { "content-type": "application/json" } }))
    .get("/docs", () => new Response(docsPage, { headers: { "content-type": "text/html; charset=utf-8" } }));
  const gate = options.adminGate;
  if (!gate) return app as unknown as Elysia;
  return app.post(
    "/admin/config/reload",
    async ({ request, server }: { request: Request; server: AddressSource | null }) => {
      const address = gate.addressOf(request, server);
      const actor = await gate.check(request, address);
      if (actor instanceof Response) return actor;
      try {
        return Response.json({ reloaded: true, ...(await options.reload({ actor: describeActor(actor), address })) });
      } catch (error) {
        const reason = error instanceof Error ? error.message : String(error);
        return adminError(400, "invalid_request_error", `config not reloaded, the old one stays: ${reason}`, { code: "invalid_config" });
      }
    },
    { parse: "none" },
  ) as unknown as Elysia;
}
