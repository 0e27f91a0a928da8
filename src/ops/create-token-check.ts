import { timingSafeEqual } from "node:crypto";

export interface TokenCheck {
  /** True when `presented` is the expected token. */
  matches(presented: string): boolean;
  /** True when the request carries `Authorization: Bearer <the token>` (the scheme in any case). */
  authorizes(request: Request): boolean;
}

const digest = (value: string): Buffer => new Bun.CryptoHasher("sha256").update(value).digest();

/** The token of an `Authorization: Bearer …` header; undefined without one. */
export function bearerTokenOf(request: Request): string | undefined {
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(request.headers.get("authorization") ?? "");
  return match?.[1];
}

/**
 * The one check of an operator token (admin, metrics). Both sides are hashed to 32 bytes and
 * compared with `timingSafeEqual`, so the time taken says nothing about the length or the content
 * of the expected token; comparing the lengths first, or the strings, would.
 */
export function createTokenCheck(expected: string): TokenCheck {
  const expectedDigest = digest(expected);
  const matches = (presented: string): boolean => timingSafeEqual(digest(presented), expectedDigest);
  return {
    matches,
    authorizes(request) {
      const presented = bearerTokenOf(request);
      // The digest is compared even without a header, so a missing one costs the same time.
      return matches(presented ?? "") && presented !== undefined;
    },
  };
}
