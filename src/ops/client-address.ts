/** What Elysia hands a handler as `server`: enough to ask for the peer's address. */
export interface AddressSource {
  requestIP(request: Request): { address: string } | null;
}

/**
 * The address a request came from (the socket's peer; forwarded headers are not read: anyone can
 * send them). "unknown" when the server cannot say.
 */
export function clientAddress(server: AddressSource | null | undefined, request: Request): string {
  return server?.requestIP(request)?.address ?? "unknown";
}
