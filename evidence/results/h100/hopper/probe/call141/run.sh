#!/usr/bin/env bash
# probe/call141: (1) short query chunks of 17-47 queries that the mma.sync path runs (draw_shapes.py ->
# shapes.txt: each problem and its 48-query twin's default, 64-row wgmma tiles): the mma.sync default, the
# twin's config, and one other 64-row wgmma config per head dim; (2) the two shapes v25 left below the
# stronger library, b26 hq28 sq80 skv512 d64 (MHA chunk) and b64 hq16 sq256 skv512 d256, their default
# against one-tunable variants. Two rounds beside SDPA, each side timed with cuDNN's batch.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
here=evidence/results/h100/hopper/probe/call141
chunks=$(cut -d' ' -f1 "$here/shapes.txt" | tr '\n' ' ')
below="b=26,hq=28,hkv=28,sq=80,skv=512,d=64,causal=0,dtype=bf16 b=64,hq=16,hkv=16,sq=256,skv=512,d=256,causal=0,dtype=fp16"
HOPPER_PROBLEMS="$chunks $below" timeout 60 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa | tail -2
mkdir -p "$OUT/chunks/hopper" "$OUT/below/hopper"
cp "$OUT/p/hopper/sdpa.csv" "$OUT/chunks/hopper/"; cp "$OUT/p/hopper/sdpa.csv" "$OUT/below/hopper/"
# CONFIG with the NAME=VALUE assignments replacing its own.
with_tunables() {
  local config=$1 kv
  shift
  for kv in "$@"; do config=$(sed -E "s/(^|,)${kv%%=*}=[^,]*/\1$kv/" <<<"$config"); done
  echo "$config"
}
i=0
while read -r problem twin <&3; do
  i=$((i + 1))
  case "$problem" in
    *d=64,*) other=$(with_tunables "$twin" block_n=128 stages=3 min_ctas=1 overlap=on producer_regs=none) ;;
    *d=128,*) other=$(with_tunables "$twin" block_n=64 stages=2 min_ctas=2 producer_regs=24 scheduler=dynamic) ;;
    *) other=$(with_tunables "$twin" stages=3 scheduler=grid o_store=threads) ;;
  esac
  HOPPER_PROBLEMS="$problem" HOPPER_CONFIGS="default;$twin;$other" BENCH_ROUNDS=2 \
    timeout 30 scripts/gpu_hopper.sh build-device "$OUT/s$i" probe | grep -v "^[12] b="
  cat "$OUT/s$i/hopper/probe.jsonl" >>"$OUT/chunks/hopper/probe.jsonl"
done 3<"$here/shapes.txt"
HOPPER_PROBLEMS="${below% *}" HOPPER_CONFIGS="default;default,block_n=64;default,stages=3;default,scheduler=grid;default,q_buffers=2" \
  BENCH_ROUNDS=2 timeout 50 scripts/gpu_hopper.sh build-device "$OUT/b1" probe | grep -v "^[12] b="
HOPPER_PROBLEMS="${below#* }" HOPPER_CONFIGS="default;default,scheduler=grid;default,scheduler=persistent;default,pingpong=off;default,overlap=off;default,block_n=80,o_store=threads,scheduler=grid" \
  BENCH_ROUNDS=2 timeout 70 scripts/gpu_hopper.sh build-device "$OUT/b2" probe | grep -v "^[12] b="
cat "$OUT"/b1/hopper/probe.jsonl "$OUT"/b2/hopper/probe.jsonl >"$OUT/below/hopper/probe.jsonl"
cd "$OUT" && tar czf all.tgz p chunks below && rm -rf p chunks below s* b1 b2 results.tgz
