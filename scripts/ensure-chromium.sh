#!/usr/bin/env bash
# Browser tests drive Debian's Chromium through Playwright, never a downloaded browser.
# Installs the `chromium` package when /usr/bin/chromium is missing.
set -euo pipefail
if [ -x "${CHROMIUM_PATH:-/usr/bin/chromium}" ]; then
  exit 0
fi
sudo_cmd=()
if [ "$(id -u)" != 0 ]; then
  if command -v sudo >/dev/null; then
    sudo_cmd=(sudo)
  else
    echo "ensure-chromium: /usr/bin/chromium is missing and this user cannot install it: run 'apt-get install chromium' as root" >&2
    exit 1
  fi
fi
echo "ensure-chromium: installing Debian's chromium" >&2
export DEBIAN_FRONTEND=noninteractive
"${sudo_cmd[@]}" apt-get update -qq >&2
"${sudo_cmd[@]}" apt-get install -y -qq --no-install-recommends chromium >&2
/usr/bin/chromium --version >&2
