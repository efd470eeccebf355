#!/usr/bin/env bash
# probe/call50: the stmatrix epilogue, the LSE only where asked for, and tile decoding by host-made divisors
# (fast_divide), against the build before them (b3fc087, build-device/base/evotune), each problem's default,
# 3 interleaved rounds; before that, the new build's wgmma GPU tests and the sanitizers on a short causal GQA
# tail shape's default (the four-CTA config). Run from the repository root, build-device/ unpacked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call50
mkdir -p "$OUT/call50"
SANITIZE_PROBLEM="b=4,hq=16,hkv=4,sq=300,skv=300,d=64,causal=1,dtype=bf16" \
  timeout 330 scripts/gpu_hopper.sh build-device "$OUT/call50" machine wgmma_tests sanitize
mapfile -t c <"$here/cases.txt"
ROUNDS=3 REPS=300 timeout 230 scripts/ab_builds.sh "$OUT/call50/ab_epilogue_divisors.txt" \
  "base=build-device/base/evotune,new=build-device/cli/evotune" "${c[@]}"
