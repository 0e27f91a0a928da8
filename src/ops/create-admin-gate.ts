import { adminError } from "./admin-error.ts";
import { clientAddress, type AddressSource } from "./client-address.ts";
import { bearerTokenOf, createTokenCheck } from "./create-token-check.ts";
import { createFailureThrottle, type FailureThrottle } from "./create-failure-throttle.ts";

/** Who made an operator call: the admin token itself, or a console session signed in with it. */
export type AdminActor = { readonly kind: "token" } | { readonly kind: "session"; readonly sessionId: string };

/** A console session as the gate needs it. */
export interface GateSession {
  readonly id: string;
  /** Sent back by the page in `x-csrf-token` on every write. */
  readonly csrfToken: string;
}

/** Finds the console session a request's cookie names; null when there is none or it is not valid. */
export type SessionLookup = (request: Request) => Promise<GateSession | null>;

export interface AdminGate {
  /** The address wrong tokens are counted against and the audit log names (`clientAddress`, with server.trustProxy). */
  addressOf(request: Request, server: AddressSource | null | undefined): string;
  /** The caller, or the answer to send instead: 401, 403 (a write without its CSRF token), 429 (too many wrong tokens). */
  check(request: Request, address: string): Promise<AdminActor | Response>;
  /** The console's sign-in: the presented token, counted against the address like a wrong header. */
  signIn(presented: string, address: string): true | Response;
  /** Adds the console's sessions as a second way in (set once the console exists). */
  acceptSessions(lookup: SessionLookup): void;
}

export interface AdminGateOptions {
  readonly token: string;
  /** Wrong tokens allowed per client address per window (default 10 a minute). */
  readonly maxFailures?: number;
  readonly windowMs?: number;
  readonly now?: () => number;
  /**
   * server.trustProxy, read per call (a config reload applies): behind a proxy every caller has the
   * proxy's address, and ten wrong tokens from anyone would lock every operator out.
   */
  readonly trustProxy?: () => boolean;
}

const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);

/** `actor` as the audit log names it. */
export function describeActor(actor: AdminActor): string {
  return actor.kind === "token" ? "token" : `console session ${actor.sessionId}`;
}

const unauthorized = (): Response => adminError(401, "authentication_error", "invalid or missing admin token", { headers: { "www-authenticate": "Bearer" } });

function tooMany(throttle: FailureThrottle, address: string): Response | null {
  const ms = throttle.blockedFor(address);
  if (ms <= 0) return null;
  const seconds = Math.max(1, Math.ceil(ms / 1000));
  return adminError(429, "rate_limit_error", `too many wrong admin tokens from this address; try again in ${seconds} s`, {
    headers: { "retry-after": String(seconds) },
  });
}

/** Same-origin writes only: a browser names the page's origin, which must be the one it called. */
function sameOrigin(request: Request): boolean {
  const origin = request.headers.get("origin");
  if (origin === null) return true;
  const host = request.headers.get("host");
  try {
    return host !== null && new URL(origin).host === host;
  } catch {
    return false;
  }
}

/**
 * The one door of the operator routes (admin API, explain, config reload, console): the admin
 * token in `Authorization: Bearer`, compared in constant time, or a console session whose writes
 * carry its CSRF token. Wrong tokens are counted per client address; past the limit the address
 * is refused (429) until its window ends, the right token included, so guessing gains nothing.
 */
export function createAdminGate(options: AdminGateOptions): AdminGate {
  const tokenCheck = createTokenCheck(options.token);
  const throttle = createFailureThrottle({ maxFailures: options.maxFailures ?? 10, windowMs: options.windowMs ?? 60_000, now: options.now });
  let sessions: SessionLookup | undefined;

  function verify(presented: string, address: string): true | Response {
    const blocked = tooMany(throttle, address);
    if (blocked) return blocked;
    if (tokenCheck.matches(presented)) return true;
    throttle.failed(address);
    return unauthorized();
  }

  return {
    addressOf: (request, server) => clientAddress(server, request, options.trustProxy?.() ?? false),
    async check(request, address) {
      if (request.headers.has("authorization")) {
        const verdict = verify(bearerTokenOf(request) ?? "", address);
        return verdict === true ? { kind: "token" } : verdict;
      }
      // No token presented is not a wrong one: it is not counted against the address.
      const session = sessions ? await sessions(request) : null;
      if (!session) return unauthorized();
      if (!SAFE_METHODS.has(request.method)) {
        const csrf = request.headers.get("x-csrf-token") ?? "";
        if (!sameOrigin(request) || !createTokenCheck(session.csrfToken).matches(csrf)) {
          return adminError(403, "permission_error", "a console write needs the session's x-csrf-token header and the console's own origin");
        }
      }
      return { kind: "session", sessionId: session.id };
    },
    signIn: verify,
    acceptSessions(lookup) {
      sessions = lookup;
    },
  };
}
