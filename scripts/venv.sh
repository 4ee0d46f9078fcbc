#!/usr/bin/env bash
# Create .venv/ in the repository root and install the project with its pinned
# dependencies, its `postgresql` extra (the driver a deployment and the store tests use) and
# the test tools (idempotent: reinstalls only when a pin changes).
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  "$PY" -m venv .venv
fi
stamp=.venv/.sanma-installed
# compat: a plain path in a .pth file. The default editable mode installs an import hook
# that loads pathlib, urllib and ipaddress at every interpreter start (~50 M instructions,
# ~12 ms), which every `sanma` command and test process would pay.
mode=compat
want=$( (cat pyproject.toml requirements-dev.txt constraints.txt; echo "$mode") | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  .venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -r requirements-dev.txt \
    -e ".[postgresql]" --config-settings editable_mode="$mode"
  echo "$want" > "$stamp"
fi
