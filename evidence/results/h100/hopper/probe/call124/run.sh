#!/usr/bin/env bash
# probe/call124: every C++ GPU test at the session's final code (the narrowed causal d=64 four-CTA bound).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 300 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests
cd "$OUT" && tar czf all.tgz hopper && rm -rf hopper results.tgz
