# syntax=docker/dockerfile:1
# satchel's image: `docker build -t satchel .` (compose.yaml does it for you).
# Where Docker is not available, scripts/docker-steps.sh runs the same build steps in a
# temporary directory; CI runs it (see .ci/run).

# The Node major of the image; .nvmrc names the same one, and scripts/docker-steps.sh runs the
# build steps on it (a test keeps the three in step).
ARG NODE_VERSION=24

# --- build: production dependencies, better-sqlite3 compiled for this Node ---------------
FROM node:${NODE_VERSION}-bookworm-slim AS build
WORKDIR /app
# Compilers for better-sqlite3 when no prebuilt binary fits, built against the Node headers
# the official image keeps under /usr/local (no download).
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
ENV npm_config_nodedir=/usr/local
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund
# The runtime imports only production dependencies (tsx runs the TypeScript).
COPY tsconfig.json ./
COPY src ./src
COPY migrations ./migrations
COPY packs ./packs
COPY scripts/satchel.mjs ./scripts/satchel.mjs
RUN node --import tsx --input-type=module --eval "await import('./src/app.ts')"

# --- runtime: no compilers, not root --------------------------------------------------------
FROM node:${NODE_VERSION}-bookworm-slim AS runtime
ENV NODE_ENV=production \
    SATCHEL_HOME=/data \
    SATCHEL_PACKS=/app/packs \
    DASHBOARD_PORT=8787 \
    LOG_FORMAT=json
WORKDIR /app
COPY --from=build /app /app
RUN mkdir -p /data && chown node:node /data
USER node
# SQLite databases, pack data, media: keep them on a volume (and back them up with
# `docker compose exec satchel node scripts/satchel.mjs backup /data/backups`).
VOLUME ["/data"]
# /healthz on the dashboard server needs no token. The dashboard listens on 127.0.0.1 inside
# the container, which is where the check runs.
HEALTHCHECK --interval=30s --timeout=5s --start-period=60s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+process.env.DASHBOARD_PORT+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# node itself as the main process, so SIGTERM reaches satchel (graceful stop, up to 10 s).
CMD ["node", "--import", "tsx", "src/main.ts"]
