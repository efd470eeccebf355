#!/usr/bin/env bash
# The attention kernel as a programmatic dependent launch (47ec1cd): the table's CUBINs exported again and
# re-verified on the H100, the example, every C++ GPU test, the op's tests, the decode step probe and the
# LLaMA run. Needs the full build pack (its header is the CPU export of 47ec1cd, --skip-verify).
# Predictions, written before the call:
#   export: all seven entries re-verify, CUBINs byte-identical to the CPU export the build embedded
#   example 9 of 9 with no libnvrtc mapped, the uncovered problem exits 2; gpu_tests 21 of 21; torch_tests 13
#   decode_step: evotune's attention in the graphed cat+attention loop 0.5-1.5 us a layer faster than before
#     (8.7-9.1 us in decode_step_d669e2d; its launch now overlaps the concatenation's tail)
#   llama, decode under CUDA graphs: evotune 1.001-1.006x SDPA's best, outside the control's spread (0.1-0.2%)
#   llama, otherwise as run_c7acf8f: prefill paired 1.000-1.008x cuDNN, top-1 pooled 0.96-0.98
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so"
python=python3
python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
mkdir -p "$OUT/decode_step"
timeout 120 "$python" scripts/decode_step_probe.py --out "$OUT/decode_step" >"$OUT/decode_step/log.txt" 2>&1
grep "^skv" "$OUT/decode_step/log.txt"
timeout 470 scripts/gpu_production.sh build-device "$OUT" machine export example gpu_tests torch_tests llama | tail -30
