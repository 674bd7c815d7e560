#!/usr/bin/env bash
# System packages the test suite needs beside the Python ones:
#   docker-compose  validates docker-compose.yml (`docker-compose config`)
#   chromium        the browser the Playwright tests drive (/usr/bin/chromium)
#   fonts-*         the generated prescription corpus (agentlab/prescriptions/render.py): printed
#                   fonts (DejaVu, Liberation) and handwriting-like ones; a missing font is an error there
# Installed with apt-get when missing and we may (root); otherwise say what to install.
set -euo pipefail

missing=()
command -v docker-compose >/dev/null 2>&1 || missing+=(docker-compose)
[ -x /usr/bin/chromium ] || missing+=(chromium)
[ -f /usr/share/fonts/truetype/dejavu/DejaVuSans.ttf ] || missing+=(fonts-dejavu-core)
[ -f /usr/share/fonts/truetype/liberation2/LiberationSans-Regular.ttf ] || missing+=(fonts-liberation2)
[ -f /usr/share/fonts/opentype/comic-neue/ComicNeue-Regular.otf ] || missing+=(fonts-comic-neue)
[ -f /usr/share/fonts/truetype/fifthhorseman/dkg.ttf ] || missing+=(fonts-dkg-handwriting)
[ -f /usr/share/fonts/truetype/humor-sans/Humor-Sans.ttf ] || missing+=(fonts-humor-sans)
[ -f /usr/share/fonts/truetype/femkeklaver/femkeklaver.ttf ] || missing+=(fonts-femkeklaver)
[ -f /usr/share/fonts/truetype/breip/Breip.ttf ] || missing+=(fonts-breip)

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
