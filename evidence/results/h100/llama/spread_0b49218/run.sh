#!/usr/bin/env bash
# Two captures of evotune's graphed decode step differ by up to 5-7 us a step, the first the faster, in every
# decode_graph_probe process at b2 x 2048 (pdl_trigger B, final_7fefc4b, run_0b49218), where SDPA default and
# cuDNN (the same kernels, captured apart) differ by 0.1-1.9 us: the same size as the margins measured against
# SDPA. Is it the launcher (one per stream: its modules, its partials buffer) or the capture? One process per
# run, b2 x 2048 and b1 x 2048, each implementation captured four times: evotune on four new streams (four
# launchers), evotune on one shared stream (one launcher), SDPA cuDNN on four new streams. Twice.
# Predictions, written before the call: the new-stream evotune captures spread over >= 4 us a step, the
# shared-stream ones within 1.5 us, cuDNN's within 1.5 us.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
mkdir -p "$OUT/spread"
for run in 1 2; do
  EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so" timeout 100 "$python" \
    scripts/decode_graph_probe.py --out "$OUT/spread/spread_$run.json" --label "run$run" --spread 4 \
    --shapes 2x2048,1x2048 2>&1 | tee -a "$OUT/spread/spread.txt" | grep -E "x[0-9]+: " | tr ';' '\n'
done
