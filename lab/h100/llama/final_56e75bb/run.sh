#!/usr/bin/env bash
# The GPU tests at the session's final code (56e75bb: the launcher's counters buffer, its programmatic_combine
# option and accessor, the C ABI's $EVOTUNE_COMBINE_LAUNCH): the example, every C++ GPU test, the op's tests.
# Predictions, written before the call: example 9 of 9 with no libnvrtc mapped and the uncovered problem exit 2;
# the 21 C++ GPU tests pass (LauncherSplitsWithItsOwnWorkspace with the plain combine's bits equal); the 13 op
# tests pass.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 590 scripts/gpu_production.sh build-device "$OUT" machine example gpu_tests torch_tests
