#!/usr/bin/env bash
# The GPU tests at the session's final code (6f09cfc): every C++ GPU test, the op's GPU tests and the example (no
# NVRTC). Since the last GPU runs of these, only formatting, __all__'s order and two launch changes made and
# reverted (e34957c: the kernels, launcher and header as at run_c7acf8f).
# Predictions, written before the call: gpu_tests 21 of 21; torch_tests 13 of 13; example 9 of 9 with no
# libnvrtc mapped, the uncovered problem exit 2.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 400 scripts/gpu_production.sh build-device "$OUT" machine example gpu_tests torch_tests | tail -8
