#!/usr/bin/env bash
# The README's first command: install everything, build the web app, and start the dashboard on
# the simulator backend. Extra arguments go to `streamscope serve` (e.g. --port 8080, --backend auto).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
"${pnpm_cmd[@]}" --filter @streamscope/web build >&2
exec "${pnpm_cmd[@]}" --silent streamscope serve --backend sim "$@"
