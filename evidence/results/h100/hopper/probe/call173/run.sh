#!/usr/bin/env bash
# probe/call173: the upload test against its control. build-pack/tests.tar.xz holds two test binaries of
# 8d9f510: evotune_tests_with_wait (as committed) and evotune_tests_without_wait (the same code with
# DeviceBuffer::upload's cuStreamSynchronize(CU_STREAM_LEGACY) line removed, built on the CPU machine for this
# call only). Each runs GpuDevice.UploadIsCompleteOnReturn five times.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
mkdir -p "$OUT/upload"
tar xJf build-pack/tests.tar.xz -C /tmp
for side in with_wait without_wait; do
  EVOTUNE_SOURCE_DIR=$PWD timeout 60 /tmp/evotune_tests_$side --gtest_filter='GpuDevice.UploadIsCompleteOnReturn' \
    --gtest_repeat=5 >"$OUT/upload/$side.txt" 2>&1
  echo "$side: exit $?, $(grep -c '^\[       OK \]' "$OUT/upload/$side.txt") of 5 passed"
  grep -m2 "is stale" "$OUT/upload/$side.txt"
done
