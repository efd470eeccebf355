#!/usr/bin/env bash
# layers_f323280 again, in one call with 2, 4 and 8 decoder layers (same settings: quality on the first model,
# short eager timings, the graphed decode as always). Is the 8-layer lead repeatable, and does the 4-layer
# model's 0.4% show beside it in the same call? Binaries of f323280.
# Predictions, written before the call: 4 layers 0.994-0.998x SDPA's best (as in eight runs); 8 layers
# 0.999-1.002x; 2 layers within its control's spread of 1.0.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
export EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so"
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
for layers in 2 4 8; do
  timeout 180 "$python" scripts/llama_e2e.py --out "$OUT/layers$layers" --layers "$layers" --quality-seeds 0 \
    --rounds 2 --prefill-pairs 2 >"$OUT/layers$layers.txt" 2>&1
  echo "layers $layers: exit $?"; grep -E "CUDA graphs \(ms" "$OUT/layers$layers.txt"
done
