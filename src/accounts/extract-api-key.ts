/** The key from `x-api-key`, else from `Authorization: Bearer …` (both are read on every endpoint). */
export function extractApiKey(headers: Headers): string | undefined {
  const direct = headers.get("x-api-key");
  if (direct) return direct.trim() || undefined;
  const authorization = headers.get("authorization");
  if (!authorization) return undefined;
  const match = /^\s*bearer\s+(\S+)\s*$/i.exec(authorization);
  return match?.[1];
}
