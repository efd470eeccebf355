#!/usr/bin/env bash
# Where is the graphed decode step's ~0.4% (5-9 us of a 4-layer step) lost: in each layer (the attention call
# in place is slower than SDPA's, whatever the profiler's timeline said) or once per step (the graph as a
# whole: launch, a programmatic edge)? The LLaMA run with 1 and with 8 decoder layers (quality on the first
# model only, short eager timings, the graphed decode as always: 15 interleaved samples of 50 replays at
# three positions, evotune captured twice as a control). Binaries of f323280.
# Predictions, written before the call: the deficit grows with the layers: evotune's graphed step behind SDPA's
# best by 1-3 us with 1 layer and by 10-20 us with 8 (per layer, ~1.5-2.2 us); the controls within 0.1%.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
export EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so"
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
for layers in 1 8; do
  timeout 280 "$python" scripts/llama_e2e.py --out "$OUT/layers$layers" --layers "$layers" --quality-seeds 0 \
    --rounds 2 --prefill-pairs 2 >"$OUT/layers$layers.txt" 2>&1
  echo "layers $layers: exit $?"; grep -E "CUDA graphs \(ms|^decode step" "$OUT/layers$layers.txt"
done
