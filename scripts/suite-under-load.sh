#!/usr/bin/env bash
# The whole suite on a loaded machine: one busy loop per core competes with it for the CPU for
# the whole run, as another job on a shared CI runner or a laptop compiling would. The suite's
# tests assert behaviour, never wall-clock timing, so it must pass the same
# (docs/reliability.md, "Under load").
#
#   scripts/suite-under-load.sh [extra vitest args]
set -euo pipefail
cd "$(dirname "$0")/.."
cores=$(node -p 'require("node:os").availableParallelism()')
hogs=()
trap 'kill "${hogs[@]}" 2>/dev/null || true' EXIT
for _ in $(seq 1 "$cores"); do
  node -e 'for (;;) {}' &
  hogs+=($!)
done
echo "== npm test with $cores busy loops beside it"
start=$(date +%s)
npm test -- "$@"
echo "== passed under load in $(( $(date +%s) - start )) s"
