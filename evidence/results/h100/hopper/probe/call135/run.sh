#!/usr/bin/env bash
# probe/call135: (1) the unpacked short-chunk rule (short_chunk_unpacked), held out: twelve shapes drawn for
# it (draw_shapes.py) and three small grids chosen by hand (80-108 tiles: the small-grid rules and splits),
# this build's default against fed4e4b's (build-device/base/evotune), beside SDPA, two rounds, the builds
# interleaved, each side timed with cuDNN's batch. (2) At this code: every C++ GPU test (the wgmma test with
# four packed and six unpacked short-chunk defaults), compute-sanitizer on the defaults of a packed causal
# short chunk (17 queries x 8 heads) and an unpacked one (55 queries, a group of three), the AOT example and
# the PyTorch op's GPU tests.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=61,hq=12,hkv=6,sq=55,skv=630,d=128,causal=1,dtype=fp16 b=48,hq=16,hkv=16,sq=61,skv=1915,d=256,causal=0,dtype=fp16 b=22,hq=28,hkv=28,sq=121,skv=6655,d=64,causal=1,dtype=bf16 b=47,hq=16,hkv=16,sq=77,skv=5528,d=256,causal=0,dtype=fp16 b=56,hq=8,hkv=8,sq=69,skv=2850,d=64,causal=0,dtype=fp16 b=42,hq=32,hkv=32,sq=109,skv=607,d=64,causal=0,dtype=bf16 b=44,hq=28,hkv=28,sq=108,skv=7146,d=128,causal=1,dtype=fp16 b=43,hq=28,hkv=14,sq=51,skv=2176,d=64,causal=0,dtype=fp16 b=42,hq=24,hkv=4,sq=57,skv=1628,d=128,causal=0,dtype=fp16 b=18,hq=40,hkv=40,sq=84,skv=529,d=128,causal=0,dtype=fp16 b=17,hq=40,hkv=40,sq=119,skv=2471,d=256,causal=1,dtype=fp16 b=45,hq=8,hkv=8,sq=100,skv=7612,d=128,causal=1,dtype=fp16 b=5,hq=16,hkv=16,sq=64,skv=6000,d=64,causal=0,dtype=bf16 b=3,hq=32,hkv=32,sq=100,skv=3000,d=128,causal=1,dtype=fp16 b=9,hq=12,hkv=12,sq=64,skv=9000,d=128,causal=0,dtype=bf16"
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
SANITIZE_PROBLEM="b=3,hq=32,hkv=4,sq=17,skv=901,d=64,causal=1,dtype=fp16" \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/hopper" gpu_tests sanitize
SANITIZE_PROBLEM="b=30,hq=6,hkv=2,sq=55,skv=300,d=64,causal=1,dtype=fp16" \
  timeout 60 scripts/gpu_hopper.sh build-device "$OUT/sanitize_unpacked" sanitize
timeout 90 scripts/gpu_production.sh build-device "$OUT/production" example torch_tests
cd "$OUT" && tar czf all.tgz p r1-new r1-base r2-new r2-base hopper sanitize_unpacked production && \
  rm -rf p r1-* r2-* hopper sanitize_unpacked production results.tgz
