#!/usr/bin/env bash
# probe/call53: with the re-exported table (examples/tuned_attention.h, built into the example and the tests):
# every C++ GPU test, the AOT example on covered and uncovered problems, and the PyTorch op's GPU tests.
# Run from the repository root, build-device/ unpacked. Everything is packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 560 scripts/gpu_production.sh build-device "$OUT/p" machine gpu_tests example torch_tests
cd "$OUT" && tar czf all.tgz p && rm -rf p
