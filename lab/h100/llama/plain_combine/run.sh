#!/usr/bin/env bash
# Does the programmatic dependent launch of the split-KV combine cost the graphed decode step what it saves
# eagerly? The short 4-layer LLaMA run twice, with evotune's step also captured with the combine launched
# plainly (--plain-combine: evotune_plain_combine), beside the bench of the table's decode config both ways.
# Predictions, written before the call: in the bench (back-to-back launches in a graph, L2 flushed) plain is
# 0.5-2 us slower than pdl; in the model's graphed step plain is 2-6 us a step slower than evotune (the
# combine's launch latency no longer hidden), i.e. the programmatic launch is not what costs the 0.4%.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
export EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so"
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
table="mma=mma_sync,block_m=16,block_n=64,warps=4,stages=3,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=1,overlap=off,qk_split=1,kv_warps=4,splits=8,combine=kernel,pack_gqa=on,pingpong=off,producer_regs=none,scheduler=grid,q_buffers=1,o_store=threads"
for round in 1 2 3; do
  for launch in pdl plain; do
    echo "bench $launch round $round: $(build-device/cli/evotune bench --problem b=2,hq=32,hkv=8,sq=1,skv=2112,d=128,causal=0,dtype=bf16 \
      --config "$table" --combine-launch $launch --no-baseline --reps 300 --json 2>/dev/null |
      python3 -c 'import json,sys; k=json.loads(sys.stdin.read().strip().splitlines()[-1])["kernel"]; print(k["median_us"], "us, batch", k.get("batch"))')"
  done
done | tee "$OUT/bench.txt"
for run in 1 2; do
  timeout 200 "$python" scripts/llama_e2e.py --out "$OUT/run$run" --quality-seeds 0 --rounds 2 --prefill-pairs 2 \
    --plain-combine >"$OUT/run$run.txt" 2>&1
  echo "run $run: exit $?"; grep -E "CUDA graphs \(ms|^\[.*decode step .* under CUDA graphs, ms" "$OUT/run$run.txt"
done
