#!/usr/bin/env bash
# CI: the production install the README gives: `npm ci`, `npm run build`, drop the dev
# dependencies, then `npm start` must serve without writing a byte inside the install (a read-only
# filesystem or image layer). And a production install that skipped the build refuses with the
# README's instructions instead of a stack trace.
#
# Usage: scripts/ci/production-install.sh [clone]
#   With no argument it clones HEAD and runs `npm ci`. Given a checkout that the README start
#   check has just installed (.ci/run passes a copy of its own, since this prunes it), it
#   continues there: that `npm install` installed the same lock file, so installing again would
#   prove nothing new. Run it from the checkout whose Rust target the copy reuses.
set -euo pipefail
src=$(pwd)
work=$(mktemp -d)
# The server runs in its own process group (setsid), and the whole group is stopped: killing only
# npm left the node process it started serving after CI (seen on a shared machine).
trap 'if [ -n "${server:-}" ]; then kill -- -"$server" 2>/dev/null || true; fi; rm -rf "$work"' EXIT
# Reuse the Rust build of the checkout: the clone compiles the same crates.
export CARGO_TARGET_DIR="$src/target"

if [ -n "${1:-}" ]; then
  app=$(cd "$1" && pwd)
  test "$(git -C "$app" rev-parse HEAD)" = "$(git rev-parse HEAD)"
  # What the README start left: its embedded data, not part of an install.
  rm -rf "$app/.data"
else
  app="$work/app"
  git clone -q "$src" "$app"
  (cd "$app" && npm ci --no-audit --no-fund)
fi
cd "$app"
npm run build
npm prune --omit=dev --no-audit --no-fund
test ! -e node_modules/typescript && test ! -e node_modules/@napi-rs/cli && test ! -e node_modules/vitest && test ! -e node_modules/tsx && test ! -e node_modules/esbuild
touch "$work/marker"
SIDENOTE_DATA_DIR="$work/data" PORT=3917 HOST=127.0.0.1 METRICS_PORT=off setsid npm start >"$work/server.log" 2>&1 &
server=$!
for _ in $(seq 1 100); do curl -sf http://127.0.0.1:3917/readyz >/dev/null && break; sleep 0.3; done
curl -sf http://127.0.0.1:3917/readyz
echo
written=$(find . -newer "$work/marker" -type f -not -path './node_modules/.cache/*' | head -5)
if [ -n "$written" ]; then echo "npm start wrote inside the install: $written"; exit 1; fi
kill -- -"$server"
wait "$server" 2>/dev/null || true
server=""
echo "production install: built, pruned, started read-only"

# The same install unbuilt (no dist/, no addon): `npm ci --omit=dev` refuses with the build
# instructions.
rm -rf dist native/*.node
if npm ci --omit=dev --no-audit --no-fund >"$work/omit.log" 2>&1; then
  echo "npm ci --omit=dev on an unbuilt install should refuse"
  exit 1
fi
grep -q 'npm ci && npm run build && npm prune --omit=dev' "$work/omit.log"
echo "an unbuilt production install refuses with the build instructions"
