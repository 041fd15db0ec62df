#!/usr/bin/env bash
# Prints the bin directory of the Node.js LTS that kubeloop's generated Dockerfile runs operators on
# (node:24-slim), installing it first from the npm registry's `node-<platform>-<arch>` package into
# the per-machine cache ($KUBELOOP_CACHE_DIR/node/<version>) when it is missing. Used by CI for a
# second unit-test run and by the benchmark, which runs the Node contenders on it.
set -euo pipefail
version=24.21.0
cache="${KUBELOOP_CACHE_DIR:-${XDG_CACHE_HOME:-$HOME/.cache}/kubeloop}"
pkg="node-$(node -p process.platform)-$(node -p process.arch)"
dir="$cache/node/$version"
if [ ! -x "$dir/node_modules/$pkg/bin/node" ]; then
  npm install --no-save --no-package-lock --no-audit --no-fund --prefix "$dir" "$pkg@$version" >&2
fi
echo "$dir/node_modules/$pkg/bin"
