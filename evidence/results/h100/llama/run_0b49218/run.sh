#!/usr/bin/env bash
# The LLaMA run at 0b49218 (the split decode's combine released after the main loop; the header exported on
# the H100), as run_quality20 ran it: top-1 pooled over twenty models, 15 timing rounds, 40 prefill pairs,
# the graphed decode with evotune captured twice; then the graphed step alone (decode_graph_probe.py) at
# b2 x 2048 beside it, the same instance.
# Predictions, written before the call:
#   - graphed decode (summary's decode_graphed): evotune ahead of SDPA's best, 1.001-1.006x (it was
#     0.994-1.000x over eight full runs before; 4 us a step gained in pdl_trigger and final_7fefc4b);
#   - prefill paired >= 1.00x cuDNN; logits' relative error 0.014 (bf16 vs fp32 0.027); top-1 raw 0.95-0.97
#     (not 0.99), where fp32 decides >= 0.999;
#   - decode_graph_probe b2 x 2048: evotune (mean of two captures) >= 1.002x SDPA's best.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
LLAMA_ARGS="--quality-seeds 19" timeout 400 scripts/gpu_production.sh build-device "$OUT" machine llama
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so" timeout 60 "$python" \
  scripts/decode_graph_probe.py --out "$OUT/production/graph_probe.json" --label 0b49218 --shapes 2x2048 2>&1 |
  tee "$OUT/production/graph_probe.txt" | grep -E "x[0-9]+: "
tar czf "$OUT/results.tgz" -C "$OUT" production
