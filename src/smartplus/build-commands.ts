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

/** `http` or `https`, nothing else. */
const PROTOCOL = /^https?$/i;
/** A host name (letters, digits, `-`, `_`, dots) or a bracketed IPv6 address, with an optional port. */
const HOST = /^(?:[A-Za-z0-9_-]+(?:\.[A-Za-z0-9_-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::([0-9]{1,5}))?$/;

const validProtocol = (value: string | null | undefined): string | undefined => (value && PROTOCOL.test(value) ? value.toLowerCase() : undefined);
function validHost(value: string | null | undefined): string | undefined {
  const match = value && value.length <= 261 ? HOST.exec(value) : null;
  return match && Number(match[1] ?? 0) <= 65535 ? match[0] : undefined;
}
/** The first of a comma-separated header (the client side of a proxy chain). */
const firstOf = (request: Request, name: string): string | undefined => request.headers.get(name)?.split(",")[0]?.trim();

/**
 * The address clients reach this gateway at, for the commands: the configured one; else the
 * request's own (its Host, on the protocol it came in on), with `x-forwarded-host` /
 * `x-forwarded-proto` taking over only when `trustProxy` is on — anyone can send them, and the
 * commands are run in a shell. A value that is not `http(s)` or a plain host[:port] is ignored;
 * null when not even the Host header is one (the caller refuses the request).
 */
export function publicBaseUrl(request: Request, settings: { readonly publicUrl: string | undefined; readonly trustProxy: boolean }): string | null {
  if (settings.publicUrl) return settings.publicUrl;
  const forwarded = settings.trustProxy ? { protocol: validProtocol(firstOf(request, "x-forwarded-proto")), host: validHost(firstOf(request, "x-forwarded-host")) } : {};
  const ownProtocol = URL.canParse(request.url) ? new URL(request.url).protocol.replace(/:$/, "") : "http";
  const host = forwarded.host ?? validHost(request.headers.get("host"));
  if (host === undefined) return null;
  return `${forwarded.protocol ?? validProtocol(ownProtocol) ?? "http"}://${host}`;
}
