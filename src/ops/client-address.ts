/** What Elysia hands a handler as `server`: enough to ask for the peer's address. */
export interface AddressSource {
  requestIP(request: Request): { address: string } | null;
}

/** Longest address kept from `x-forwarded-for`: an IPv6 address with a zone fits; more is not an address. */
const MAX_FORWARDED_ADDRESS = 64;

/**
 * The address a request came from: the socket's peer, or with `trustProxy` (server.trustProxy,
 * behind a proxy) the last `x-forwarded-for` entry, the one that proxy appended; the entries before
 * it are whatever the client sent. Without `trustProxy` forwarded headers are not read: anyone can
 * send them. "unknown" when the server cannot say.
 */
export function clientAddress(server: AddressSource | null | undefined, request: Request, trustProxy = false): string {
  if (trustProxy) {
    const forwarded = request.headers.get("x-forwarded-for");
    const last = forwarded?.slice(forwarded.lastIndexOf(",") + 1).trim();
    if (last && last.length <= MAX_FORWARDED_ADDRESS) return last;
  }
  return server?.requestIP(request)?.address ?? "unknown";
}
