#!/usr/bin/env bash
# Installs what streamscope needs on a machine that has only Node.js and npm: the pnpm version
# named in package.json, then the workspace's dependencies from the lockfile (which also builds
# the CUDA addon where nvcc exists; without CUDA the addon is absent and the simulator serves).
# Sourced by start.sh and test.sh; defines `pnpm_cmd`.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

export TURBO_TELEMETRY_DISABLED=1
export PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD=1

want_pnpm=$(node -p "require('./package.json').packageManager.split('@')[1]")
pnpm_cmd=(pnpm)
if [ "$(pnpm --version 2>/dev/null || true)" != "$want_pnpm" ]; then
  echo "setup: installing pnpm $want_pnpm with npm" >&2
  if ! npm install --global --no-fund --no-audit "pnpm@$want_pnpm" >&2 2>/dev/null; then
    # No rights to install globally: run it through npx instead.
    pnpm_cmd=(npx --yes "pnpm@$want_pnpm")
  fi
  hash -r
  if [ "$(pnpm --version 2>/dev/null || true)" != "$want_pnpm" ]; then
    pnpm_cmd=(npx --yes "pnpm@$want_pnpm")
  fi
fi

frozen=--frozen-lockfile
"${pnpm_cmd[@]}" install "$frozen" >&2
