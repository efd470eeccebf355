#!/usr/bin/env bash
# probe/call44: the next_qk branch's GPU tests and A/B; the short d=64 defaults beside SDPA in one call;
# Nsight Compute of ours and cuDNN's on a short non-causal d=64 shape. Run from the repository root on the
# device machine with build-device/ (main) and build-device/v1/ (branch next/overlap-next-qk) unpacked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call44
main=build-device/cli/evotune branch=build-device/v1/cli/evotune
R=/tmp/call44; mkdir -p "$R"
# The outputs gather in $R and are packed into $OUT/results.tgz at the end (and after each step).
pack() { tar czf "$OUT/results.tgz" -C "$R" .; }
# 1. The branch's wgmma GPU tests (five next_qk cases among them).
EVOTUNE_SOURCE_DIR=$PWD timeout 120 build-device/v1/tests/evotune_tests --gtest_color=no \
  --gtest_filter='GpuAttention.Wgmma*' >"$R/branch_wgmma_tests.txt" 2>&1
echo "branch wgmma tests: exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED" "$R/branch_wgmma_tests.txt" | head; pack
# 2. next_qk against on/off, branch build only (main has no next_qk).
mapfile -t c <"$here/cases_next_qk.txt"
ROUNDS=2 REPS=300 timeout 180 scripts/ab_builds.sh "$R/ab_next_qk.txt" "branch=$branch" "${c[@]}" >/dev/null; pack
# 3. The short d=64 defaults (main) beside SDPA flash and cuDNN, same call.
short="b=8,hq=16,hkv=16,sq=768,skv=768,d=64,causal=0,dtype=bf16 b=64,hq=8,hkv=8,sq=256,skv=256,d=64,causal=0,dtype=fp16 b=2,hq=24,hkv=24,sq=1536,skv=1536,d=64,causal=1,dtype=fp16 b=4,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=fp16 b=16,hq=8,hkv=8,sq=896,skv=896,d=64,causal=0,dtype=bf16"
OUT= HOPPER_PROBLEMS="$short" HOPPER_CONFIGS=default BENCH_ROUNDS=3 timeout 150 \
  scripts/gpu_hopper.sh build-device "$R/h" machine probe sdpa; pack
# 4. Nsight Compute: ours (default) and cuDNN's on b4 hq16 s1024 d64 non-causal.
OUT= NCU_PROBLEMS="b=4,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=fp16" timeout 130 \
  scripts/gpu_hopper.sh build-device "$R/n" ncu
rm -f "$R"/n/hopper/*.ncu-rep; gzip -f "$R"/n/hopper/*.csv; pack
cat "$R/ab_next_qk.txt"
