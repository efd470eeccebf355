#!/usr/bin/env bash
# probe/call107: idle warpgroups passing their pingpong turns on in a loop of their own (28df8d8): 
# compute-sanitizer on the three-warpgroup pingpong config (two idle in each head's last tile, CTAs walking
# several tiles); then each case of cases.txt (four shapes with idle warpgroups, six without, the issue's
# three causal d=128 rows among them) in three builds: c5fb4cd (base), a0d0857 (v1: no turns taken in such
# tiles, probe/call106) and 28df8d8 (new), 3 interleaved rounds. Run from the repository root,
# build-device/ unpacked.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call107
mkdir -p "$OUT/call107/s192"
SANITIZE_PROBLEM="b=3,hq=16,hkv=4,sq=640,skv=640,d=64,causal=1,dtype=bf16" \
SANITIZE_CONFIG="mma=wgmma,block_m=192,warps=16,block_n=128,stages=2,producer_regs=32,overlap=on,pingpong=on,scheduler=dynamic,o_store=tma" \
  timeout 170 scripts/gpu_hopper.sh build-device "$OUT/call107/s192" machine sanitize
mapfile -t c <"$here/cases.txt"
ROUNDS=3 REPS=200 timeout 400 scripts/ab_builds.sh "$OUT/call107/ab_turns.txt" \
  "base=build-device/base/evotune,v1=build-device/v1/evotune,new=build-device/cli/evotune" "${c[@]}"
