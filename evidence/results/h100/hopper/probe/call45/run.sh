#!/usr/bin/env bash
# probe/call45: warps=4 (no producer warpgroup: the consumer's thread 0 issues the TMA copies, 128 registers
# per thread at four CTAs per SM) against the four-CTA default (a producer warpgroup, 104 registers), with and
# without overlap, on short d=64 shapes; SDPA beside them; the wgmma GPU tests; sanitizers and Nsight
# Compute on the new configuration. Run from the repository root on the device machine, build-device/ unpacked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call45
R=/tmp/call45; mkdir -p "$R"
pack() { tar czf "$OUT/results.tgz" -C "$R" .; }
EVOTUNE_SOURCE_DIR=$PWD timeout 120 build-device/tests/evotune_tests --gtest_color=no \
  --gtest_filter='GpuAttention.Wgmma*' >"$R/wgmma_tests.txt" 2>&1
echo "wgmma tests: exit $?"; grep -E "^\[  (PASSED|FAILED) |^\[  FAILED|Failure" "$R/wgmma_tests.txt" | head; pack
mapfile -t c <"$here/cases.txt"
ROUNDS=2 REPS=300 timeout 240 scripts/ab_builds.sh "$R/ab_inline.txt" "main=build-device/cli/evotune" "${c[@]}" >/dev/null; pack
problems=$(cut -d'|' -f1 "$here/cases.txt" | sort -u | tr '\n' ' ')
OUT= HOPPER_PROBLEMS="$problems" timeout 90 scripts/gpu_hopper.sh build-device "$R/h" machine sdpa; pack
inline="mma=wgmma,block_m=64,warps=4,block_n=64,stages=2,overlap=on,producer_regs=0,min_ctas=4,o_store=tma"
OUT= SANITIZE_CONFIG="$inline" timeout 150 scripts/gpu_hopper.sh build-device "$R/s" sanitize; pack
OUT= NCU_PROBLEMS="b=4,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=fp16" \
  NCU_CONFIGS="default,warps=4,producer_regs=0;default,warps=4,producer_regs=0,overlap=on" timeout 100 \
  scripts/gpu_hopper.sh build-device "$R/n" ncu
rm -f "$R"/n/hopper/*.ncu-rep "$R"/n/hopper/ncu_p1_cudnn*; gzip -f "$R"/n/hopper/*.csv; pack
cat "$R/ab_inline.txt"
