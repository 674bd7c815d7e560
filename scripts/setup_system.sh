#!/usr/bin/env bash
# System packages the test suite needs beside the Python ones:
#   docker-compose  validates docker-compose.yml (`docker-compose config`)
#   chromium        the browser the Playwright tests drive (/usr/bin/chromium)
# Installed with apt-get when missing and we may (root); otherwise say what to install.
set -euo pipefail

missing=()
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
[ -x /usr/bin/chromium ] || missing+=(chromium)

if [ ${#missing[@]} -eq 0 ]; then
  exit 0
fi
if [ "$(id -u)" -eq 0 ] && command -v apt-get >/dev/null 2>&1; then
  echo "[setup] installing system packages: ${missing[*]}"
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${missing[@]}" >/dev/null
else
  echo "[setup] please install these system packages: ${missing[*]}" >&2
  exit 1
fi
