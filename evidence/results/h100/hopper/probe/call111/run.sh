#!/usr/bin/env bash
# probe/call111: pass_turns with no turns over an empty split chunk (a1b9279's skip_idle pingpong kernels
# would have waited forever there): the wgmma GPU test with a case of empty chunks and an idle warpgroup, and
# the AOT table re-exported for the kernel sources' new digest. The session's device time was nearly spent:
# nothing else.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$OUT/tests"
timeout 120 build-device/tests/evotune_tests --gtest_color=no --gtest_filter='GpuAttention.WgmmaMatchesTheReference' \
  >"$OUT/tests/wgmma_tests.txt" 2>&1
echo "wgmma test: exit $?"; grep -E "^\[  (PASSED|FAILED) |Failure" "$OUT/tests/wgmma_tests.txt" | head
timeout 90 scripts/gpu_production.sh build-device "$OUT/production" export
cd "$OUT" && rm -f production/production/table.db-* && tar czf all.tgz tests production && rm -rf tests production results.tgz
