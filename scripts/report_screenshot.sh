#!/usr/bin/env bash
# Renders an evotune report (one self-contained HTML file) to a PNG with headless Chromium, 1280 px wide.
# Evidence screenshots and the ReportScreenshot test both come from this one command line.
#   scripts/report_screenshot.sh REPORT.html OUT.png [HEIGHT_PX]   (default height 4400: a whole report)
set -euo pipefail

if [[ $# -lt 2 || $# -gt 3 ]]; then
  echo "usage: $0 REPORT.html OUT.png [HEIGHT_PX]" >&2
  exit 2
fi
report=$(realpath "$1")
out=$(realpath -m "$2")
height=${3:-4400}
command -v chromium >/dev/null || { echo "$0: chromium is not installed (scripts/setup.sh installs it)" >&2; exit 3; }

# A private profile, so that concurrent runs do not contend for one and nothing is left behind.
profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT

# --force-color-profile=srgb: the PNG holds the page's colours exactly, which the test relies on.
chromium --headless --no-sandbox --disable-gpu --hide-scrollbars --force-color-profile=srgb --no-first-run \
  --user-data-dir="$profile" --window-size=1280,"$height" --screenshot="$out" "file://$report" \
  >"$profile/chromium.log" 2>&1 || { cat "$profile/chromium.log" >&2; exit 1; }
[[ -s "$out" ]] || { echo "$0: chromium wrote no screenshot" >&2; cat "$profile/chromium.log" >&2; exit 1; }
