#!/usr/bin/env bash
# The combine's release point beyond the LLaMA decode (pdl_trigger), alone with L2 flushed, three builds'
# evotune (build-var/, packed in build-pack/wgmma_ab.tar.xz):
#   old: 177d8f2 (every split kernel releases its combine at its start);
#   cur: 0b49218 (mma.sync and scalar kernels release it after their main loop; wgmma at its start);
#   W:   cur + the wgmma kernel of one tile a CTA (scheduler=grid) releasing it after its consumers' main loop.
# Cases, each the problem-aware default: four wgmma split grids (short query chunks), two mma.sync split
# grids at d=64 and d=256, two split d=128 decode grids (16 and 8 chunks). 3 interleaved rounds, 300 reps.
# Predictions, written before the call:
#   - mma.sync cases: cur within 2% of old or faster on all four, faster by >= 1% on at least two;
#   - wgmma cases: cur = old within 1% (same code); W within 2% of cur, faster on at least two of four.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 EVOTUNE_SOURCE_DIR="$PWD"
tar xJf build-pack/wgmma_ab.tar.xz
mkdir -p "$OUT/trigger_more"
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv >"$OUT/trigger_more/machine.txt" 2>&1
cases=()
for p in b=1,hq=32,hkv=8,sq=64,skv=4096,d=128,causal=1,dtype=bf16 b=2,hq=32,hkv=8,sq=64,skv=4096,d=128,causal=1,dtype=bf16 \
  b=1,hq=16,hkv=16,sq=100,skv=6000,d=128,causal=0,dtype=bf16 b=1,hq=32,hkv=8,sq=32,skv=8192,d=128,causal=1,dtype=bf16 \
  b=2,hq=8,hkv=8,sq=40,skv=3000,d=64,causal=1,dtype=fp16 b=1,hq=8,hkv=8,sq=64,skv=8000,d=256,causal=1,dtype=bf16 \
  b=1,hq=32,hkv=8,sq=1,skv=8192,d=128,causal=0,dtype=bf16 b=4,hq=64,hkv=8,sq=1,skv=4096,d=128,causal=0,dtype=bf16; do
  cases+=("$p|default")
done
ROUNDS=3 REPS=300 timeout 400 scripts/ab_builds.sh "$OUT/trigger_more/ab.txt" \
  "old=build-var/A/evotune,cur=build-var/cur/evotune,W=build-var/W/evotune" "${cases[@]}"
