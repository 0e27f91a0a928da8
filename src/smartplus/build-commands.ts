/** Single-quoted for POSIX shells. The values quoted here (URLs, tokens) never hold a quote, but stay safe if they did. */
const quote = (value: string): string => `'${value.replaceAll("'", `'\\''`)}'`;

/**
 * The pack command: from the repository root, the files git tracks plus untracked files that are
 * not ignored, NUL-separated into tar (no recursion, so a submodule is its folder entry only),
 * gzipped and streamed to the upload endpoint by curl (`-T -` sends chunked, never buffering the
 * archive). Only git, tar and curl: GNU tar and bsdtar both read `--null -T -`.
 */
export function buildPackCommand(baseUrl: string, jobId: string, token: string): string {
  return [
    `cd "$(git rev-parse --show-toplevel)" &&`,
    `git ls-files -z --cached --others --exclude-standard |`,
    `tar --null --no-recursion -T - -czf - |`,
    `curl -sS --fail-with-body -X POST -T - -H ${quote(`Authorization: Bearer ${token}`)} -H 'content-type: application/gzip' ${quote(`${baseUrl}/v1/handoff/${jobId}/upload`)}`,
  ].join(" ");
}

/** The apply command: the patch downloaded by curl and piped to `git apply` in the repository root. */
export function buildApplyCommand(baseUrl: string, jobId: string, token: string): string {
  return [
    `cd "$(git rev-parse --show-toplevel)" &&`,
    `curl -fsS -H ${quote(`Authorization: Bearer ${token}`)} ${quote(`${baseUrl}/v1/handoff/${jobId}/patch`)} |`,
    `git apply -v`,
  ].join(" ");
}

/** The address clients reach this gateway at: the configured one, else the request's (proxy headers honoured). */
export function publicBaseUrl(configured: string | undefined, request: Request): string {
  if (configured) return configured;
  const url = new URL(request.url);
  const proto = request.headers.get("x-forwarded-proto")?.split(",")[0]?.trim();
  const host = request.headers.get("x-forwarded-host")?.split(",")[0]?.trim() ?? request.headers.get("host");
  return `${proto || url.protocol.replace(/:$/, "")}://${host || url.host}`;
}
