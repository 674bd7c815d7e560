#!/usr/bin/env bash
# Handwriting fonts to fine-tune the OCR recogniser on (python manage.py train_recogniser).
# Google Fonts' handwriting families, as npm packages from Fontsource (the only registry with fonts
# that this machine reaches), latin 400 weight, into the folder given (default var/fonts/handwriting).
# Debian's fonts-bwht, fonts-dancingscript, fonts-ecolier-court and fonts-cabinsketch are used too
# when installed. None of these is a font of the evaluation corpus (agentlab/prescriptions/render.py).
set -euo pipefail
out="${1:-var/fonts/handwriting}"
mkdir -p "$out"
out="$(cd "$out" && pwd)"
tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT
families=(
  caveat patrick-hand indie-flower kalam shadows-into-light gochi-hand reenie-beanie homemade-apple
  architects-daughter just-another-hand covered-by-your-grace handlee schoolbell coming-soon
  nothing-you-could-do sue-ellen-francisco zeyada cedarville-cursive over-the-rainbow nanum-pen-script
  gloria-hallelujah rock-salt permanent-marker neucha short-stack delius annie-use-your-telescope
  loved-by-the-king swanky-and-moo-moo
)
cd "$tmp"
for family in "${families[@]}"; do
  npm pack -q "@fontsource/$family" >/dev/null
  tar xzf fontsource-"$family"-*.tgz
  cp package/files/"$family"-latin-400-normal.woff "$out/"
  rm -rf package fontsource-"$family"-*.tgz
done
echo "fonts in $out: $(ls "$out" | wc -l)"
