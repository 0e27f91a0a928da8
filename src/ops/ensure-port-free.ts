/** The listen address is taken by another process: start-up stops with one line (exit 2). */
export class PortInUseError extends Error {
  override readonly name = "PortInUseError";
  constructor(host: string, port: number) {
    super(`${host.includes(":") ? `[${host}]` : host}:${port} is already in use (another gateway still running?); stop it or set PORT`);
  }
}

const isAddressInUse = (error: unknown): boolean => (error as { code?: unknown } | null)?.code === "EADDRINUSE";

/**
 * Throws PortInUseError when `host:port` cannot be bound, before start-up opens the database or
 * starts anything: a second instance on a port in use must stop without touching what the first
 * one holds. Port 0 (any free port) always passes. The listen itself must not use SO_REUSEPORT
 * (Elysia turns it on by default), or two gateways would both listen and split the traffic.
 */
export function ensurePortFree(host: string, port: number): void {
  if (port === 0) return;
  try {
    Bun.listen({ hostname: host, port, socket: { data() {} } }).stop(true);
  } catch (error) {
    if (isAddressInUse(error)) throw new PortInUseError(host, port);
    throw error;
  }
}

/** Runs `listen`, turning an address-in-use failure (a start that raced another) into PortInUseError. */
export function listenOrExplain<T>(host: string, port: number, listen: () => T): T {
  try {
    return listen();
  } catch (error) {
    if (isAddressInUse(error)) throw new PortInUseError(host, port);
    throw error;
  }
}
