/** Postgres channel on which every account/key change is announced to all instances. */
export const AUTH_CHANNEL = "routelane_auth";

/**
 * What changed. `account`: plan, default tier, limits or suspension — drop every cached key of it.
 * `key-revoked`, `key-changed` (its controls): drop that key. `key-created`: the new key may sit in a cache of unknown keys.
 */
export type AuthEvent =
  | { readonly kind: "account"; readonly accountId: string }
  | { readonly kind: "key-revoked"; readonly accountId: string; readonly keyId: string }
  | { readonly kind: "key-changed"; readonly accountId: string; readonly keyId: string }
  | { readonly kind: "key-created"; readonly accountId: string };

export function encodeAuthEvent(event: AuthEvent): string {
  return JSON.stringify(event);
}

/** null for anything unrecognised; receivers then flush everything, which is always safe. */
export function decodeAuthEvent(payload: string): AuthEvent | null {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch {
    return null;
  }
  if (typeof value !== "object" || value === null) return null;
  const { kind, accountId, keyId } = value as Record<string, unknown>;
  if (typeof accountId !== "string") return null;
  switch (kind) {
    case "account":
    case "key-created":
      return { kind, accountId };
    case "key-revoked":
    case "key-changed":
      return typeof keyId === "string" ? { kind, accountId, keyId } : null;
    default:
      return null;
  }
}
