#!/usr/bin/env bash
# Run Sanma. For now: a self-played demo match printed to the terminal.
set -euo pipefail
cd "$(dirname "$0")"
scripts/venv.sh
exec .venv/bin/sanma demo "$@"
