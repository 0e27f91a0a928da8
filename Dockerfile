# syntax=docker/dockerfile:1
# Routelane as one self-contained executable (`bun run build`) on a slim Bun image.

ARG BUN_VERSION=1.4.5

FROM oven/bun:${BUN_VERSION} AS build
WORKDIR /src
COPY package.json bun.lock ./
RUN bun install --frozen-lockfile --production
COPY tsconfig.json ./
COPY drizzle ./drizzle
COPY src ./src
RUN bun run build --outfile /out/routelane

FROM oven/bun:${BUN_VERSION}-slim AS runtime
# The executable carries its migrations (applied at every start, serialised across instances on
# Postgres) and the embedded PGlite, with a new database's data dir made by the build (a new /data
# starts from it rather than running initdb); /data holds PGlite's files and the demo key when no
# DATABASE_URL is set.
ENV HOST=0.0.0.0 \
    PORT=8787 \
    ROUTELANE_DATA_DIR=/data \
    ROUTELANE_SHUTDOWN_TIMEOUT_MS=25000
RUN mkdir -p /data && chown bun:bun /data
COPY --from=build --chown=bun:bun /out/routelane /usr/local/bin/routelane
USER bun
WORKDIR /home/bun
VOLUME ["/data"]
EXPOSE 8787
STOPSIGNAL SIGTERM
HEALTHCHECK --interval=15s --timeout=3s --start-period=20s --retries=3 \
  CMD ["bun", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 8787) + '/healthz').then(r => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["/usr/local/bin/routelane"]
