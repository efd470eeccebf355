#!/usr/bin/env bash
# The production steps at 7fefc4b (the split decode's combine released after the main loop; the header exported
# again on the CPU, its decode CUBIN changed), and the graphed decode step of the model at six shapes.
# Predictions, written before the call:
#   - export: the seven entries re-verified on the H100 (pass), CUBINs byte-identical to examples/tuned_attention.h;
#   - example: 9 of 9 problems from the header's CUBINs with no NVRTC mapped, the uncovered one exit 2;
#   - gpu_tests: 21 pass; torch_tests: 13 pass;
#   - decode_graph_probe (one process): evotune (mean of its two captures) at or ahead of SDPA's best at
#     b2 x 2048, b2 x 1024, b4 x 2048 and b8 x 1024; b1 x 2048 and b1 x 4096 within 0.4% of it.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
timeout 420 scripts/gpu_production.sh build-device "$OUT" machine export example gpu_tests torch_tests
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
EVOTUNE_JIT=1 EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so" timeout 120 "$python" \
  scripts/decode_graph_probe.py --out "$OUT/production/graph_probe.json" --label 7fefc4b \
  --shapes 2x2048,2x1024,4x2048,8x1024,1x2048,1x4096 2>&1 | tee "$OUT/production/graph_probe.txt" | grep -E "x[0-9]+: "
tar czf "$OUT/results.tgz" -C "$OUT" production
