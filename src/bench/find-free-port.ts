/**
 * A port nothing listens on right now: bind port 0, read what the kernel chose, release it. A
 * small race with other programs remains; the readiness wait catches a child that lost it.
 */
export function findFreePort(hostname = "127.0.0.1"): number {
  const server = Bun.listen({ hostname, port: 0, socket: { data() {} } });
  const port = server.port;
  server.stop(true);
  return port;
}
