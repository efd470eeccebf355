#!/usr/bin/env bash
# probe/call63: one way of timing per comparison. Until now each side chose its own launches per sample by
# its own length (a CUDA graph below 20 us), so a kernel just under the line was timed batched (its later
# launches find Q/K/V in L2, no launch gaps) beside one just over it timed alone. On twelve short shapes:
#   both   the sdpa step first, then the default benched with cuDNN's batch (gpu_hopper.sh's new order)
#   eager  the same with SDPA_BATCH=1: single launches on both sides
#   search a 24-trial search of b16 hq8 s384 with its library baseline: the confirmation's batch is the
#          baselines' (search.txt, summary)
#   the GpuTimer tests (a given batch overrides the length). On the H100. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=16,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=12,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=bf16 b=6,hq=12,hkv=12,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=64,hq=8,hkv=8,sq=256,skv=256,d=64,causal=0,dtype=fp16 b=1,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=0,dtype=bf16 b=2,hq=8,hkv=8,sq=1000,skv=1000,d=64,causal=0,dtype=fp16 b=4,hq=8,hkv=8,sq=768,skv=768,d=64,causal=0,dtype=fp16 b=32,hq=8,hkv=8,sq=256,skv=256,d=64,causal=1,dtype=fp16 b=1,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=3,hq=16,hkv=16,sq=768,skv=768,d=64,causal=0,dtype=fp16 b=4,hq=32,hkv=8,sq=640,skv=640,d=64,causal=0,dtype=fp16 b=2,hq=16,hkv=16,sq=1024,skv=1024,d=128,causal=1,dtype=bf16"
mkdir -p "$OUT/checks"
timeout 120 build-device/tests/evotune_tests --gtest_color=no --gtest_filter='GpuTimer*' >"$OUT/checks/gpu_timer.txt" 2>&1
tail -3 "$OUT/checks/gpu_timer.txt"
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default" BENCH_ROUNDS=3 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/both" machine sdpa probe
HOPPER_PROBLEMS="$problems" HOPPER_CONFIGS="default" BENCH_ROUNDS=3 SDPA_BATCH=1 \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/eager" sdpa probe
p="b=16,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=fp16"
{ echo "\$ evotune search --problem $p --budget 24 ..."
  timeout 150 build-device/cli/evotune --cache-dir "$OUT/checks/cache" search --problem "$p" --db "$OUT/checks/search.db" \
    --devices 0 --budget 24 --evo offspring=8 --lookahead 3 --history 0 --summary-json "$OUT/checks/search_summary.json"
  echo "exit code $?"; } >"$OUT/checks/search.txt" 2>&1
rm -rf "$OUT/checks/cache"
grep -E "confirmed|winner|baseline" "$OUT/checks/search.txt"
python3 -c 'import sqlite3,sys; c=sqlite3.connect(sys.argv[1]); [print(r) for r in c.execute("select name, median_us, detail_json from baselines")]' "$OUT/checks/search.db" >"$OUT/checks/baselines.txt" 2>&1
cat "$OUT/checks/baselines.txt" | cut -c1-300
gzip "$OUT/checks/search.db"
cd "$OUT" && tar czf all.tgz checks both eager && rm -rf checks both eager results.tgz
