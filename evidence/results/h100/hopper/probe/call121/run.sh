#!/usr/bin/env bash
# probe/call121: the causal d=64 four-CTA bound at 3072 keys (was 2048), held out: twelve causal d=64 shapes
# with 2049-3072 keys drawn at random (draw_shapes.py, seed 20261130), the default of this build against
# the default of the build before the change (4569bb1, build-device/base/evotune), beside SDPA, two rounds,
# the builds interleaved within each round, each side timed with cuDNN's batch. Then the wgmma GPU test (its
# new case: that default over 2600 keys).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=4,hq=12,hkv=3,sq=2165,skv=2165,d=64,causal=1,dtype=bf16 b=2,hq=8,hkv=4,sq=672,skv=2688,d=64,causal=1,dtype=fp16 b=1,hq=16,hkv=4,sq=2822,skv=2822,d=64,causal=1,dtype=fp16 b=1,hq=16,hkv=2,sq=2719,skv=2719,d=64,causal=1,dtype=fp16 b=3,hq=16,hkv=4,sq=2238,skv=2238,d=64,causal=1,dtype=bf16 b=4,hq=12,hkv=12,sq=2609,skv=2609,d=64,causal=1,dtype=fp16 b=8,hq=24,hkv=24,sq=2798,skv=2798,d=64,causal=1,dtype=fp16 b=1,hq=40,hkv=20,sq=2355,skv=2355,d=64,causal=1,dtype=bf16 b=1,hq=16,hkv=16,sq=2057,skv=2057,d=64,causal=1,dtype=bf16 b=8,hq=48,hkv=24,sq=2588,skv=2588,d=64,causal=1,dtype=bf16 b=2,hq=16,hkv=16,sq=1318,skv=2637,d=64,causal=1,dtype=fp16 b=1,hq=16,hkv=8,sq=2798,skv=2798,d=64,causal=1,dtype=bf16"
mkdir -p build-base/cli && cp build-device/base/evotune build-base/cli/evotune
HOPPER_PROBLEMS="$problems" timeout 150 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -3
for round in 1 2; do
  for side in new base; do
    dir="$OUT/r$round-$side" build=build-device
    [[ $side == base ]] && build=build-base
    mkdir -p "$dir/hopper" && cp "$OUT/p/hopper/sdpa.csv" "$dir/hopper/"
    HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS=default BENCH_ROUNDS=1 \
      timeout 150 scripts/gpu_hopper.sh "$build" "$dir" probe | grep -v "^1 b="
  done
done
timeout 150 scripts/gpu_hopper.sh build-device "$OUT/tests" wgmma_tests
cd "$OUT" && tar czf all.tgz p r1-new r1-base r2-new r2-base tests && rm -rf p r1-* r2-* tests results.tgz
