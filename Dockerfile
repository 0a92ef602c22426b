# Sidenote in a container: the production install of the README ("Production install"), built in
# one stage (Rust toolchain, dev dependencies) and run from another that has neither, as a
# non-root user, with `node dist/server.js` as the entrypoint so that signals reach the server
# (SIGTERM drains requests and flushes writes within SHUTDOWN_GRACE_MS). compose.yaml runs it
# beside Postgres and Redis; README, "Running in a container".

FROM node:24-bookworm-slim AS build
SHELL ["/bin/bash", "-o", "pipefail", "-c"]
RUN apt-get update \
  && apt-get install -y --no-install-recommends build-essential ca-certificates curl \
  && rm -rf /var/lib/apt/lists/*
ENV RUSTUP_HOME=/opt/rustup CARGO_HOME=/opt/cargo PATH=/opt/cargo/bin:$PATH
RUN curl --proto '=https' --tlsv1.2 -sSf https://sh.rustup.rs | sh -s -- -y --profile minimal --no-modify-path
WORKDIR /app
COPY . .
RUN npm ci --no-audit --no-fund \
  && npm run build \
  && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
ENV NODE_ENV=production \
  HOST=0.0.0.0 \
  PORT=3000 \
  SIDENOTE_DATA_DIR=/data/pglite
WORKDIR /app
COPY --from=build /app/package.json /app/package-lock.json ./
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY --from=build /app/native ./native
COPY --from=build /app/catalog ./catalog
COPY --from=build /app/bin ./bin
# The embedded default (no DATABASE_URL) keeps its database and keys here; mount a volume.
# 1000 is the image's `node` user, named by number so that any runtime resolves it.
RUN mkdir -p /data && chown 1000:1000 /data
USER 1000:1000
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
ENTRYPOINT ["node", "dist/server.js"]
