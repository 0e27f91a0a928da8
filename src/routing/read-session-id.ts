import type { CanonicalRequest } from "../canonical/request.ts";

/** Session headers real clients send (Claude Code, Codex, pi, and the gateway's own). */
const SESSION_HEADERS = ["x-session-id", "x-claude-code-session-id", "session-id", "session_id"] as const;

/**
 * A client session id that refines the conversation key: a session header, else the end-user id
 * (Claude Code puts its session in `metadata.user_id`).
 */
export function readSessionId(headers: Headers, request: CanonicalRequest): string | undefined {
  for (const name of SESSION_HEADERS) {
    const value = headers.get(name);
    if (value) return value;
  }
  return request.user || undefined;
}
