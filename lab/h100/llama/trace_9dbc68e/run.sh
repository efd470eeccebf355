#!/usr/bin/env bash
# Where the graphed decode step's ~5 us a step behind SDPA's best goes (five runs 0.996-1.000x, the attention
# alone ~1.4 us a layer faster): chrome traces of 20 replays of each implementation's graphed last step
# (llama_e2e.py --profile), read by scripts/trace_gaps.py. A short LLaMA run otherwise. Binaries of e34957c
# (the launch changes reverted; the library as at run_c7acf8f), scripts at 9dbc68e.
# Predictions, written before the call: the busy time (union of kernel intervals) of evotune's step is within
# 2 us of SDPA default's or below it, and evotune's step has 4-8 us more idle time, around its attention calls
# (before the attention kernel or after the combine), than SDPA default's around cuDNN's.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
LLAMA_ARGS="--profile --quality-seeds 0 --rounds 2 --prefill-pairs 2 --graph-rounds 5" \
  timeout 400 scripts/gpu_production.sh build-device "$OUT" machine llama | grep -E "CUDA graphs \(ms"
python3 scripts/trace_gaps.py "$OUT"/production/llama/trace_graphed_*.json | tee "$OUT/production/trace_gaps.txt"
