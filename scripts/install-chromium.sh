#!/usr/bin/env bash
# Installs Debian's Chromium (used headless by the HTML report's browser test) when it is missing.
set -euo pipefail
if command -v chromium >/dev/null 2>&1; then exit 0; fi
if [ "$(id -u)" != 0 ]; then
  echo "chromium is missing; install Debian's package: sudo apt-get install -y chromium" >&2
  exit 1
fi
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
chromium --version
