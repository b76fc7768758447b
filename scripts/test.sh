#!/usr/bin/env bash
# The README's second command (and what CI runs): install everything, Debian's chromium included,
# then type-check, lint, format-check, unit tests, build, and the browser tests against the real
# server. Fails when any step fails.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
source scripts/setup.sh
bash scripts/ensure-chromium.sh
export CHROMIUM_PATH="${CHROMIUM_PATH:-/usr/bin/chromium}"
step() {
  echo "== $*" >&2
  "${pnpm_cmd[@]}" "$@"
}
# Reports go beside Playwright's test-results/, which Playwright empties when it starts.
reports="$PWD/reports"
mkdir -p "$reports"
rm -f "$reports/vitest.json" "$reports/e2e.json"
step typecheck
step lint
step format:check
step test --reporter=default --reporter=json --outputFile.json="$reports/vitest.json"
step build
PLAYWRIGHT_JSON_OUTPUT_NAME="$reports/e2e.json" step test:e2e --reporter=list,json
node scripts/test-summary.mjs "$reports/vitest.json" "$reports/e2e.json"
