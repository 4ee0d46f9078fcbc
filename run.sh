#!/usr/bin/env bash
# Run Sanma: the game server with the browser client (it prints the URL to open).
# `.venv/bin/sanma demo` shows a self-played match in the terminal instead.
set -euo pipefail
cd "$(dirname "$0")"
scripts/venv.sh
exec .venv/bin/sanma serve "$@"
