#!/usr/bin/env bash
# Where the decode attention's ~6 us a step goes under CUDA graphs (decode_step_d669e2d: evotune's attention
# ~1.4 us a layer faster; run_c7acf8f: the graphed step level, 0.9997x): torch.profiler over 20 replays of each
# implementation's graphed last step (CUDA time per kernel), a short LLaMA run otherwise (no further models, 3
# rounds, 4 prefill pairs, 5 graph rounds). Binaries of d669e2d, scripts at 53b021f.
# Predictions, written before the call: evotune's attention kernels (attention_fwd + attention_combine) take
# 4-8 us a step less than SDPA default's cuDNN pair; every other kernel's total within 1 us a step of SDPA
# default's; so the step's GPU time favours evotune and what evens the graphed step is in the graph's gaps
# between kernels, not in a kernel.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
LLAMA_ARGS="--profile --quality-seeds 0 --rounds 3 --prefill-pairs 4 --graph-rounds 5" \
  timeout 400 scripts/gpu_production.sh build-device "$OUT" machine llama | tail -6
for f in "$OUT"/production/llama/profile_graphed_*.txt; do echo "== $f"; head -24 "$f" | cut -c1-200; done
