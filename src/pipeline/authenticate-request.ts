import type { KeyAuthenticator, Principal } from "../accounts/principal.ts";
import { authenticationFailed, clientSuspended } from "../canonical/gateway-error.ts";
import { extractApiKey } from "../accounts/extract-api-key.ts";

/** The caller's principal, or the spec's 401 (missing, unknown, revoked key) / 403 (suspended). */
export async function authenticateRequest(headers: Headers, authenticator: KeyAuthenticator): Promise<Principal> {
  const key = extractApiKey(headers);
  if (!key) throw authenticationFailed();
  const found = authenticator.authenticate(key);
  const principal = found instanceof Promise ? await found : found;
  if (!principal) throw authenticationFailed();
  if (principal.suspended) throw clientSuspended();
  return principal;
}
