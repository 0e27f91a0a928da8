import type { AuditActor } from "../../accounts/record-audit.ts";
import { describeDbError } from "../../db/sanitize-db-error.ts";
import { GatewayError } from "../../canonical/gateway-error.ts";
import { adminError, adminErrorOf } from "../../ops/admin-error.ts";
import type { AddressSource } from "../../ops/client-address.ts";
import { describeActor, type AdminGate } from "../../ops/create-admin-gate.ts";
import { readRequestUrl } from "../../pipeline/read-request-url.ts";

/** An admin handler: the request, its path parameters, and who called (for the audit log). */
export type AdminHandler = (request: Request, params: Record<string, string>, by: AuditActor) => Promise<Response>;

export type AdminContext = { request: Request; params: Record<string, string>; server: AddressSource | null };

/**
 * Wraps an admin handler: the gate first (token or console session), then the handler; a rule
 * the handler breaks (a GatewayError under 500) is answered in the operator shape, anything else
 * is logged without query text and answered 500.
 */
export function adminGuard(gate: AdminGate): (handler: AdminHandler) => (context: AdminContext) => Promise<Response> {
  return (handler) =>
    async ({ request, params, server }) => {
      const address = gate.addressOf(request, server);
      const actor = await gate.check(request, address);
      if (actor instanceof Response) return actor;
      try {
        return await handler(request, params, { actor: describeActor(actor), address });
      } catch (err) {
        if (err instanceof GatewayError && err.status < 500) return adminErrorOf(err);
        console.error(`admin ${request.method} ${readRequestUrl(request).pathname} failed: ${describeDbError(err)}`);
        return adminError(500, "api_error", "internal error");
      }
    };
}
