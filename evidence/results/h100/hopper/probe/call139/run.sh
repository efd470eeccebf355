#!/usr/bin/env bash
# probe/call139: decode grids of at least half as many CTAs as SMs unsplit (4d53ad2), held out: twelve decode
# shapes that 6f8e23e's default split (build-device/base/evotune), six over 512-2048 keys and six over
# 2048-32768 (draw_shapes.py), this build's default against that one, beside SDPA, two rounds, the builds
# interleaved, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=26,hq=16,hkv=8,sq=16,skv=1060,d=128,causal=1,dtype=bf16 b=51,hq=24,hkv=6,sq=1,skv=1524,d=64,causal=1,dtype=bf16 b=40,hq=8,hkv=4,sq=4,skv=572,d=64,causal=1,dtype=fp16 b=31,hq=32,hkv=4,sq=2,skv=1166,d=128,causal=1,dtype=bf16 b=63,hq=24,hkv=3,sq=1,skv=599,d=128,causal=0,dtype=fp16 b=44,hq=8,hkv=4,sq=2,skv=579,d=64,causal=0,dtype=fp16 b=24,hq=64,hkv=8,sq=1,skv=2862,d=128,causal=1,dtype=fp16 b=23,hq=24,hkv=3,sq=1,skv=24599,d=256,causal=0,dtype=bf16 b=40,hq=8,hkv=2,sq=1,skv=2703,d=64,causal=1,dtype=bf16 b=42,hq=16,hkv=4,sq=1,skv=2710,d=64,causal=1,dtype=fp16 b=8,hq=64,hkv=32,sq=4,skv=2474,d=64,causal=1,dtype=bf16 b=29,hq=8,hkv=4,sq=16,skv=17323,d=64,causal=0,dtype=bf16"
mkdir -p build-base/cli && cp build-device/base/evotune build-base/cli/evotune
HOPPER_PROBLEMS="$problems" timeout 60 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
for round in 1 2; do
  for side in new base; do
    dir="$OUT/r$round-$side" build=build-device
    [[ $side == base ]] && build=build-base
    mkdir -p "$dir/hopper" && cp "$OUT/p/hopper/sdpa.csv" "$dir/hopper/"
    HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS=default BENCH_ROUNDS=1 \
      timeout 60 scripts/gpu_hopper.sh "$build" "$dir" probe | grep -v "^1 b="
  done
done
cd "$OUT" && tar czf all.tgz p r1-new r1-base r2-new r2-base && rm -rf p r1-* r2-* results.tgz
