#!/usr/bin/env bash
# probe/call133: two rule changes, this build's default against the default of the build before them
# (call132's, a9b6be7 with the has_rows edit: build-device/base/evotune), beside SDPA, two rounds, the builds
# interleaved within each round, each side timed with cuDNN's batch (draw_shapes.py):
# (1) short query chunks (16-127 queries) of GQA whose packed rows fill a 128-row tile: the wgmma mainloop,
#     packed (short_chunk_fills_a_tile), where the mma.sync path ran them;
# (2) causal d=64 GQA from 1536 keys in groups of four or more, or sq < skv: packed 192-row tiles instead of
#     the four-CTA config (packed_192_leads; probe/call132 measured fourteen, these are held out);
# (3) six short chunks the rule leaves to the mma.sync path, this build only: where they stand.
# (The GPU tests, with four short-chunk default cases, run in the next call.)
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
changed="b=6,hq=48,hkv=12,sq=32,skv=17936,d=64,causal=1,dtype=bf16 b=7,hq=64,hkv=8,sq=96,skv=6590,d=128,causal=0,dtype=bf16 b=56,hq=32,hkv=4,sq=96,skv=648,d=64,causal=0,dtype=bf16 b=6,hq=24,hkv=3,sq=16,skv=6260,d=128,causal=1,dtype=bf16 b=4,hq=16,hkv=2,sq=16,skv=31661,d=256,causal=0,dtype=bf16 b=36,hq=48,hkv=24,sq=96,skv=10708,d=64,causal=1,dtype=fp16 b=28,hq=8,hkv=2,sq=80,skv=6010,d=128,causal=0,dtype=bf16 b=27,hq=48,hkv=12,sq=100,skv=1089,d=256,causal=1,dtype=fp16 b=33,hq=48,hkv=24,sq=96,skv=16977,d=64,causal=0,dtype=fp16 b=31,hq=24,hkv=3,sq=48,skv=15218,d=256,causal=0,dtype=bf16 b=4,hq=64,hkv=8,sq=80,skv=1111,d=64,causal=1,dtype=bf16 b=44,hq=40,hkv=10,sq=32,skv=1125,d=128,causal=1,dtype=bf16 b=52,hq=16,hkv=8,sq=64,skv=8815,d=128,causal=0,dtype=bf16 b=60,hq=48,hkv=12,sq=64,skv=10034,d=256,causal=1,dtype=bf16 b=35,hq=40,hkv=10,sq=64,skv=11249,d=256,causal=1,dtype=bf16 b=17,hq=48,hkv=12,sq=32,skv=574,d=128,causal=0,dtype=bf16 b=39,hq=16,hkv=2,sq=2944,skv=2944,d=64,causal=1,dtype=fp16 b=4,hq=40,hkv=10,sq=1616,skv=1616,d=64,causal=1,dtype=fp16 b=28,hq=24,hkv=6,sq=2624,skv=2624,d=64,causal=1,dtype=fp16 b=36,hq=32,hkv=16,sq=612,skv=1837,d=64,causal=1,dtype=fp16 b=14,hq=8,hkv=1,sq=1056,skv=2112,d=64,causal=1,dtype=bf16 b=62,hq=24,hkv=12,sq=513,skv=1540,d=64,causal=1,dtype=fp16 b=9,hq=28,hkv=14,sq=1170,skv=2340,d=64,causal=1,dtype=bf16 b=32,hq=40,hkv=5,sq=2419,skv=2419,d=64,causal=1,dtype=bf16"
left="b=63,hq=24,hkv=4,sq=16,skv=19120,d=128,causal=1,dtype=fp16 b=25,hq=16,hkv=16,sq=64,skv=9030,d=64,causal=0,dtype=fp16 b=40,hq=32,hkv=32,sq=127,skv=1265,d=64,causal=0,dtype=bf16 b=53,hq=28,hkv=28,sq=64,skv=13692,d=256,causal=0,dtype=fp16 b=39,hq=28,hkv=28,sq=127,skv=581,d=64,causal=1,dtype=bf16 b=10,hq=48,hkv=48,sq=48,skv=2279,d=128,causal=1,dtype=bf16"
mkdir -p build-base/cli && cp build-device/base/evotune build-base/cli/evotune
HOPPER_PROBLEMS="$changed $left" timeout 120 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -3
for round in 1 2; do
  for side in new base; do
    dir="$OUT/r$round-$side" build=build-device problems="$changed $left"
    [[ $side == base ]] && build=build-base problems="$changed"
    mkdir -p "$dir/hopper" && cp "$OUT/p/hopper/sdpa.csv" "$dir/hopper/"
    HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS=default BENCH_ROUNDS=1 \
      timeout 170 scripts/gpu_hopper.sh "$build" "$dir" probe | grep -v "^1 b="
  done
done
cd "$OUT" && tar czf all.tgz p r1-new r1-base r2-new r2-base && rm -rf p r1-* r2-* results.tgz
