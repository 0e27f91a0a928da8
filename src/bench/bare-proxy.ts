/**
 * The bench's floor: the least a Bun proxy can do — read the body, fetch the same path upstream,
 * hand back the upstream body (streamed as it arrives) with its status and content type. The
 * gateway is measured against this in the same run, so whatever it costs beyond it is the gateway.
 *
 * Standalone entry: BARE_PORT, BARE_HOST (default 127.0.0.1), BARE_UPSTREAM (e.g. http://127.0.0.1:4000).
 */

// Only what the simulated upstream needs to pick the right shape; copying every header would be
// extra work the floor should not do.
const FORWARDED = ["content-type", "accept", "anthropic-version"] as const;

export function startBareProxy(options: { port: number; hostname: string; upstream: string }): ReturnType<typeof Bun.serve> {
  const upstream = options.upstream.replace(/\/+$/, "");
  return Bun.serve({
    port: options.port,
    hostname: options.hostname,
    async fetch(request) {
      const body = await request.arrayBuffer();
      const headers: Record<string, string> = {};
      for (const name of FORWARDED) {
        const value = request.headers.get(name);
        if (value !== null) headers[name] = value;
      }
      const path = request.url.slice(request.url.indexOf("/", request.url.indexOf("//") + 2));
      const answer = await fetch(upstream + path, { method: request.method, headers, body });
      return new Response(answer.body, {
        status: answer.status,
        headers: { "content-type": answer.headers.get("content-type") ?? "application/octet-stream" },
      });
    },
  });
}

if (import.meta.main) {
  const upstream = process.env.BARE_UPSTREAM;
  if (!upstream) {
    console.error("bare-proxy: BARE_UPSTREAM is required");
    process.exit(2);
  }
  const server = startBareProxy({
    port: Number(process.env.BARE_PORT ?? 0),
    hostname: process.env.BARE_HOST ?? "127.0.0.1",
    upstream,
  });
  console.log(`bare listening on http://${server.hostname}:${server.port}`);
  process.on("SIGTERM", () => {
    server.stop(true);
    process.exit(0);
  });
}
