#!/usr/bin/env bash
# Set up, configure, build and run the whole test suite. Exits non-zero on any failure.
# GPU tests skip with a reason when no CUDA driver or device is present.
#   scripts/test.sh              the release build (build/), the one the main job runs
#   scripts/test.sh --sanitize   instead, one build with AddressSanitizer + UBSan, assertions on
#                                (build-sanitize/; libraries -O1, CLI and tests -O0, a unity build): CI's
#                                command. One build, not two: on CI's 2 cores the release build plus the
#                                -O0 sanitizer build took 25 minutes; this took 13 to 15, and 8.5 as a
#                                unity build (lab/notes/readme-history.md).
set -euo pipefail
cd "$(dirname "$0")/.."

scripts/setup.sh
# torch for the PyTorch op's tests, in .venv/ (once; later runs reuse it).
scripts/python_env.sh >/dev/null
export PATH="${CUDA_HOME:-/usr/local/cuda}/bin:$PATH"
# setup.sh installed Chromium: the report's screenshot test must run here, not skip.
export EVOTUNE_REQUIRE_CHROMIUM=1

presets=(release)
[[ "${1:-}" == "--sanitize" ]] && presets=(sanitize)

for preset in "${presets[@]}"; do
  echo "== $preset: configure and build"
  cmake --preset "$preset" >/dev/null
  cmake --build --preset "$preset"
  echo "== $preset: tests"
  # NVRTC's own allocations are not ours to fix; leak checking stays off, every other ASan check is on.
  ASAN_OPTIONS=detect_leaks=0 ctest --preset "$preset" -j 2
done
