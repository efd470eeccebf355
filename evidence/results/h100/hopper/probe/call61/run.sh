#!/usr/bin/env bash
# probe/call61, on an H100: the causal d=128 GQA defaults with pack_gqa=on (new, build-device/cli/evotune)
# against dd7c93c's (old, build-device/base/evotune; the same kernels), on seven shapes not used to choose
# it and the two listed causal GQA rows, 3 interleaved rounds; SDPA beside. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call61
mkdir -p "$OUT/v"
mapfile -t c <"$here/cases.txt"
ROUNDS=3 REPS=100 timeout 330 scripts/ab_builds.sh "$OUT/v/ab_pack_gqa.txt" \
  "old=build-device/base/evotune,new=build-device/cli/evotune" "${c[@]}"
problems=""; for x in "${c[@]}"; do problems+="${x%%|*} "; done
HOPPER_PROBLEMS="$problems" timeout 90 scripts/gpu_hopper.sh build-device "$OUT/v/ab" machine sdpa
cd "$OUT" && tar czf all.tgz v && rm -rf v results.tgz
