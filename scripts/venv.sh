#!/usr/bin/env bash
# Create .venv/ in the repository root and install the project with its pinned
# dependencies and test tools (idempotent: reinstalls only when a pin changes).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.sanma-installed
want=$(cat pyproject.toml requirements-dev.txt constraints.txt | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -r requirements-dev.txt -e .
  echo "$want" > "$stamp"
fi
