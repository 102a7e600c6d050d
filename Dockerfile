# The license manager as a container image (DESIGN.md section 6e): built with the development
# dependencies, run without them as a non-root user, the SQLite data in a volume, configured by
# environment variables (README: Configuration). Debian's npm only runs `npm ci`: the Node 24 that
# runs the server is the project's own, from npm, as on any machine.

FROM docker.io/library/debian:bookworm-slim AS build
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends npm ca-certificates \
 && rm -rf /var/lib/apt/lists/*
WORKDIR /app
# The manifests first: the dependencies are a layer of their own, rebuilt only when they change.
COPY package.json package-lock.json ./
COPY packages/contract/package.json packages/contract/
COPY packages/server/package.json packages/server/
COPY packages/web/package.json packages/web/
COPY packages/sdk/package.json packages/sdk/
COPY e2e/package.json e2e/
# Behind a proxy that inspects TLS, give npm its certificate authority as the build secret
# `ca_bundle` (`--secret id=ca_bundle,src=/etc/ssl/certs/ca-certificates.crt`); it stays out of the image.
# Debian's npm 9 (on Node 18) skips the platform's optional packages of this lockfile (Vite's native
# bundler, npm/cli#4828), so it only fetches the project's Node 24 and a current npm, which then
# install the project exactly as `npm ci` does on any machine.
ENV PATH=/opt/toolchain/node_modules/node/bin:$PATH
RUN --mount=type=secret,id=ca_bundle,required=false \
    if [ -s /run/secrets/ca_bundle ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca_bundle; fi \
 && /usr/bin/npm install --prefix /opt/toolchain --no-audit --no-fund "node@$(sed -n 's/^ *"node": "\([^"]*\)".*/\1/p' package.json | head -n 1)" npm@11 \
 && ln -s /opt/toolchain/node_modules/npm/bin/npm-cli.js /opt/toolchain/node_modules/node/bin/npm \
 && node --version && npm --version \
 && npm ci --no-audit --no-fund
COPY . .
RUN --mount=type=secret,id=ca_bundle,required=false \
    if [ -s /run/secrets/ca_bundle ]; then export NODE_EXTRA_CA_CERTS=/run/secrets/ca_bundle; fi \
 && npm run build \
 && npm ci --omit=dev --no-audit --no-fund \
 && rm -rf packages/web/src packages/*/test e2e bench clients docs

FROM docker.io/library/debian:bookworm-slim
RUN apt-get update \
 && DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends ca-certificates \
 && rm -rf /var/lib/apt/lists/* \
 && groupadd --system --gid 10001 license-manager \
 && useradd --system --uid 10001 --gid license-manager --home-dir /data --no-create-home license-manager \
 && mkdir -p /data && chown license-manager:license-manager /data && chmod 700 /data
COPY --from=build --chown=root:root /app /app
WORKDIR /app
ENV NODE_ENV=production \
    PORT=3000 \
    HOST=0.0.0.0 \
    DATA_DIR=/data \
    WEB_DIST=/app/packages/web/dist \
    PATH=/app/node_modules/node/bin:$PATH
USER license-manager
VOLUME ["/data"]
EXPOSE 3000
# Answers while the database does (README: Monitoring); no curl in the image, so Node asks.
HEALTHCHECK --interval=30s --timeout=5s --start-period=30s --retries=3 \
  CMD ["node", "-e", "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/api/health').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"]
# The server in PID 1's place, so that SIGTERM from `docker stop` / `podman stop` reaches it.
CMD ["node", "scripts/start.ts"]
