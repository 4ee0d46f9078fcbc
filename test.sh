#!/usr/bin/env bash
# Run every check: lint, types, and the whole test suite (warnings are errors).
set -euo pipefail
cd "$(dirname "$0")"
scripts/venv.sh
.venv/bin/ruff check sanma tests bench
.venv/bin/mypy sanma
.venv/bin/python -m pytest "$@"
