#!/usr/bin/env bash
# The LLaMA run with the graphed decode timed closer (15 rounds of 50 replays at each of three steps, evotune
# captured twice as the measurement's control), binaries of d669e2d (the library unchanged since), scripts and
# python/ at c7acf8f.
# Predictions, written before the call:
#   control (evotune's two captures) within 0.1% of each other
#   decode under CUDA graphs: evotune 1.001-1.006x SDPA's best (its attention ~1.4 us a layer faster, ~6 us of a
#     ~1.52 ms step; run_d669e2d's 0.996x was inside that run's spread)
#   eager: prefill and decode by round medians within 3% and 5% of SDPA's best; paired prefill vs cuDNN
#     1.000-1.006; top-1 pooled the same as run_d669e2d (the same seeds, the same kernels)
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 560 scripts/gpu_production.sh build-device "$OUT" machine llama | tail -14
