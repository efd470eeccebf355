#!/usr/bin/env bash
# The attention benchmark table, on a GPU machine, in one run:
#   scripts/bench_attention.sh [BUILD_DIR] [OUT_DIR]
# For each problem: `evotune bench` with each listed config (kernel, cuBLAS unfused baseline, device
# peaks), then PyTorch SDPA (flash, cudnn, efficient) on the same problems, timed the same way, and a
# side-by-side table. Files in OUT_DIR: bench.txt (human), bench.jsonl (one JSON object per bench),
# sdpa.csv, side_by_side.md.
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
out="${2:-${OUT:-bench-results}}"
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EVOTUNE_CACHE_DIR="${EVOTUNE_CACHE_DIR:-/tmp/evotune-cache}"
evotune="$build/cli/evotune"

# problem | configs (space-separated; each "name=value,..." with unnamed parameters at their defaults)
benchmarks=(
  "b=1,hq=8,sq=512,skv=512,d=64,causal=0,dtype=fp16|block_m=64,warps=4,block_n=64,q_frags=regs block_m=64,warps=4,block_n=64 block_m=128,warps=8,block_n=128"
  "b=4,hq=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16|block_m=128,warps=8,block_n=128 block_m=128,warps=8,block_n=128,smem_layout=padded,q_frags=regs block_m=64,warps=4,block_n=64,q_frags=regs"
  "b=4,hq=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16|block_m=128,warps=8,block_n=128 block_m=64,warps=4,block_n=64,q_frags=regs"
  "b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16|block_m=128,warps=8,block_n=128 block_m=64,warps=4,block_n=64,q_frags=regs"
  "b=32,hq=32,hkv=8,sq=1,skv=4096,d=128,causal=0,dtype=fp16|block_m=32,warps=2,block_n=64 block_m=16,warps=1,block_n=64,q_frags=regs"
)

: >"$out/bench.jsonl"
: >"$out/bench.txt"
problems=()
status=0
for entry in "${benchmarks[@]}"; do
  problem="${entry%%|*}"
  problems+=(--problem "$problem")
  for config in ${entry#*|}; do
    echo "== $problem | $config" | tee -a "$out/bench.txt"
    "$evotune" bench --problem "$problem" --config "$config" --timer clock64 --json-out "$out/bench.jsonl" \
      >>"$out/bench.txt" 2>&1 || status=1
  done
done

python=python3
python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
"$python" scripts/compare_sdpa.py "${problems[@]}" --csv "$out/sdpa.csv" --evotune-json "$out/bench.jsonl" \
  --markdown "$out/side_by_side.md" >"$out/sdpa.txt" 2>&1 || status=1
tail -n 60 "$out/sdpa.txt"
exit $status
