#!/usr/bin/env bash
# probe/call64: short non-causal d=64 below 768 keys, where the four-CTA config is the default, against one
# CTA per SM of 192-row tiles (the persistent config the d=64 rule takes from 768 keys; call63's search picked
# it on b16 hq8 s384, 15.0 us against 16.97 timed alike) and of 128-row tiles (overlap, pingpong); each problem
# timed with cuDNN's batch (both/) and with single launches on both sides (eager/); 2 rounds. Then a 24-trial
# search of b16 hq8 s384 whose trials are all timed with the first one's batch. On the H100. Packed into
# $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=16,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=12,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=bf16 b=32,hq=16,hkv=16,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=16,hq=16,hkv=16,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=512,skv=512,d=64,causal=0,dtype=bf16 b=24,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=4,hq=32,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=6,hq=12,hkv=12,sq=576,skv=576,d=64,causal=0,dtype=fp16 b=8,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=2,hq=32,hkv=32,sq=640,skv=640,d=64,causal=0,dtype=fp16"
common="mma=wgmma,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=smem,min_ctas=1,overlap=on,qk_split=1,kv_warps=1,splits=1,combine=kernel,pack_gqa=off,pingpong=on,scheduler=persistent,q_buffers=1,o_store=tma,rescale=lazy"
configs="default;$common,block_m=192,block_n=128,warps=16,producer_regs=32;$common,block_m=128,block_n=128,warps=12,producer_regs=24"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="$configs" BENCH_ROUNDS=2 \
  timeout 240 scripts/gpu_hopper.sh build-device "$OUT/both" machine sdpa probe
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="$configs" BENCH_ROUNDS=2 SDPA_BATCH=1 \
  timeout 240 scripts/gpu_hopper.sh build-device "$OUT/eager" sdpa probe
mkdir -p "$OUT/checks"
p="b=16,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16"
{ echo "\$ evotune search --problem $p --budget 24 --evo offspring=8 --lookahead 3 --history 0"
  timeout 150 build-device/cli/evotune --cache-dir "$OUT/checks/cache" search --problem "$p" --db "$OUT/checks/search.db" \
    --devices 0 --budget 24 --evo offspring=8 --lookahead 3 --history 0 --summary-json "$OUT/checks/search_summary.json"
  echo "exit code $?"; } >"$OUT/checks/search.txt" 2>&1
rm -rf "$OUT/checks/cache"
grep -E "confirmed|winner|baseline|^  [0-9]\." "$OUT/checks/search.txt" | cut -c1-160
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(r) for r in c.execute("select status, median_us, substr(config,1,60) from trials order by id")]' "$OUT/checks/search.db" >"$OUT/checks/trials.txt" 2>&1
head -30 "$OUT/checks/trials.txt"
gzip "$OUT/checks/search.db"
cd "$OUT" && tar czf all.tgz checks both eager && rm -rf checks both eager results.tgz
