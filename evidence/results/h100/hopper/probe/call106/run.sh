#!/usr/bin/env bash
# probe/call106: causal tiles whose last consumer warpgroups have no rows skip their GEMMs (the producer
# releases their K/V slots, and they take no pingpong turns). compute-sanitizer on two such configs (three
# consumer warpgroups with pingpong and the dynamic scheduler, two idle in each head's last tile; two with a
# second Q buffer, one idle), each with CTAs walking several tiles; then each case of cases.txt (the default
# of eight causal shapes with idle warpgroups in their last tiles and seven without) against the build
# before (build-device/base/evotune, c5fb4cd), 3 interleaved rounds. Run from the repository root,
# build-device/ unpacked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call106
mkdir -p "$OUT/call106/s192" "$OUT/call106/s128"
SANITIZE_PROBLEM="b=4,hq=16,hkv=4,sq=640,skv=640,d=64,causal=1,dtype=bf16" \
SANITIZE_CONFIG="mma=wgmma,block_m=192,warps=16,block_n=128,stages=2,producer_regs=32,overlap=on,pingpong=on,scheduler=dynamic,o_store=tma" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/call106/s192" machine sanitize
SANITIZE_PROBLEM="b=4,hq=16,hkv=4,sq=300,skv=300,d=128,causal=1,dtype=fp16" \
SANITIZE_CONFIG="mma=wgmma,block_m=128,warps=12,block_n=128,stages=2,producer_regs=32,overlap=on,pingpong=off,scheduler=dynamic,q_buffers=2,o_store=tma" \
  timeout 150 scripts/gpu_hopper.sh build-device "$OUT/call106/s128" sanitize
mapfile -t c <"$here/cases.txt"
ROUNDS=3 REPS=200 timeout 330 scripts/ab_builds.sh "$OUT/call106/ab_idle_warpgroups.txt" \
  "base=build-device/base/evotune,new=build-device/cli/evotune" "${c[@]}"
