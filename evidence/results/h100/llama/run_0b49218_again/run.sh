#!/usr/bin/env bash
# run_0b49218 again, the same commands and build, on the next machine instance that comes (the graphed decode
# step has differed between instances by up to 0.6% before). run_0b49218 gave graphed 0.9999x SDPA's best
# (control 1.0005), its probe after it 1.0070x and 1.0031x.
# Predictions, written before the call: graphed decode 0.997-1.004x SDPA's best; prefill paired >= 1.00x
# cuDNN; logits 0.014; the probe's two evotune captures at or ahead of SDPA's best.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
LLAMA_ARGS="--quality-seeds 19" timeout 400 scripts/gpu_production.sh build-device "$OUT" machine llama
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so" timeout 60 "$python" \
  scripts/decode_graph_probe.py --out "$OUT/production/graph_probe.json" --label 0b49218 --shapes 2x2048 2>&1 |
  tee "$OUT/production/graph_probe.txt" | grep -E "x[0-9]+: "
tar czf "$OUT/results.tgz" -C "$OUT" production
