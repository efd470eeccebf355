#!/usr/bin/env bash
# Why evotune's decode step under CUDA graphs was 0.996x SDPA default's in run_d669e2d (5.7 us a step behind):
# the decode attention as the step runs it, K and V just appended by concatenation (L2 holds them), four layers
# in one graph per implementation, beside the call alone with L2 flushed, and each implementation's kernels.
# Predictions, written before the call: with L2 flushed evotune is the fastest (as the table's search found:
# ~1.2x cuDNN at this shape); in the step (L2 warm) it is behind SDPA default by 1-2 us a layer; evotune launches
# two kernels a call (attention, split combine), SDPA's backends one or two.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so"
python=python3
python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
mkdir -p "$OUT/decode_step"
timeout 300 "$python" scripts/decode_step_probe.py --out "$OUT/decode_step" 2>&1 | tee "$OUT/decode_step/log.txt" | tail -20
for f in "$OUT"/decode_step/kernels_*.txt; do echo "== $f"; head -16 "$f" | cut -c1-160; done
