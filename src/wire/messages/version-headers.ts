const DEFAULT_ANTHROPIC_VERSION = "2023-06-01";

/** The Messages API's version header (the client's, or the one the gateway speaks) and its beta header when the client sent one. */
export function messagesVersionHeaders(client: Headers): Record<string, string> {
  const headers: Record<string, string> = { "anthropic-version": client.get("anthropic-version") || DEFAULT_ANTHROPIC_VERSION };
  const beta = client.get("anthropic-beta");
  if (beta) headers["anthropic-beta"] = beta;
  return headers;
}
