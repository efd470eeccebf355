#!/usr/bin/env bash
# probe/call57, on an H100: the small-grid d=64 rule from call56 (128-row tiles no more than the SMs, 64-row
# ones more: one 128x128 tile per SM with overlap and pingpong, unsplit; and d=64 128-row configs there keep
# their tiles instead of the 64x128 small-grid config), on ten shapes that did not choose it: the new
# default (build-device/cli/evotune) against the default of 990ac57 (build-device/base/evotune; the same
# kernels), 3 interleaved rounds; SDPA beside. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call57
mkdir -p "$OUT/v"
mapfile -t c <"$here/cases.txt"
ROUNDS=3 REPS=300 timeout 240 scripts/ab_builds.sh "$OUT/v/ab_small_grid.txt" \
  "old=build-device/base/evotune,new=build-device/cli/evotune" "${c[@]}"
problems=""; for x in "${c[@]}"; do problems+="${x%%|*} "; done
HOPPER_PROBLEMS="$problems" timeout 60 scripts/gpu_hopper.sh build-device "$OUT/v/ab" machine sdpa
cd "$OUT" && tar czf all.tgz v && rm -rf v results.tgz
