#!/usr/bin/env bash
# llama_e2e.py and decode_graph_probe.py after their capture and replay code moved into scripts/graph_step.py
# (the probe now also keeps its graphs' input K/V tensors alive): a short LLaMA run with --plain-combine and the
# probe at b2 x 2048, build of 0b49218 (the kernels unchanged since).
# Predictions, written before the call: both run to the end; the graphed step's logits equal the eager ones
# (max abs diff 0 for evotune); evotune's graphed step 0.998-1.004x SDPA's best in both.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
LLAMA_ARGS="--quality-seeds 0 --rounds 2 --prefill-pairs 2 --plain-combine" timeout 200 \
  scripts/gpu_production.sh build-device "$OUT" machine llama | grep -E "CUDA graphs \(ms|exit|Error|error"
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so" timeout 60 "$python" \
  scripts/decode_graph_probe.py --out "$OUT/production/graph_probe.json" --label check --shapes 2x2048 2>&1 |
  tee "$OUT/production/graph_probe.txt" | grep -E "x[0-9]+: |Error"
tar czf "$OUT/results.tgz" -C "$OUT" production
