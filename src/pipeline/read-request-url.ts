/** Stands in for the host when a request's `Host` header is not a host name. */
const NO_HOST = "http://invalid.host";

/**
 * The request's URL, for its path and query. Bun gives `request.url` as the bare path when the
 * `Host` header is not a host name (`Host: a b`), which `new URL` refuses: such a request must
 * still get its 404, its page or its error in the caller's shape, never a 500.
 */
export function readRequestUrl(request: Request): URL {
  return URL.parse(request.url) ?? new URL(request.url, NO_HOST);
}
