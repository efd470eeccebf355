#!/usr/bin/env bash
# state_f323280's instance had SDPA default's graphed step faster (1.511 ms) than the instance of the layers
# runs (1.521), where evotune's was the same on both (~1.520): whose kernels move? The short 4-layer run with
# the profiler (chrome traces of 20 replays of each implementation's graphed last step, as trace_9dbc68e),
# on whatever instance comes; per kernel name, the median duration and sum per replay (scripts/trace_gaps.py
# for the gaps).
# Predictions, written before the call: the graphed step 0.994-1.001x; per replay, cuDNN's attention kernels
# (flash_fprop + lean_reduction) sum to 40-44 us and evotune's call spans 40-46 us (4 calls).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
LLAMA_ARGS="--profile --quality-seeds 0 --rounds 2 --prefill-pairs 2 --graph-rounds 5" \
  timeout 400 scripts/gpu_production.sh build-device "$OUT" machine llama | grep -E "CUDA graphs \(ms"
python3 scripts/trace_gaps.py "$OUT"/production/llama/trace_graphed_*.json | tee "$OUT/production/trace_gaps.txt"
