#!/usr/bin/env bash
# The combine kernel lets the next kernel launch once it starts (72949f4): the LLaMA run (decode under CUDA
# graphs with the control), the table's CUBINs exported again and re-verified on the H100, the op's GPU tests,
# the decode step probe. Needs the full build pack (its header the CPU export of 72949f4, --skip-verify).
# Predictions, written before the call:
#   llama, decode under CUDA graphs: evotune 1.000-1.006x SDPA's best (the o_proj GEMM after the combine may
#     now launch while it runs, as cuDNN's reduction allows), the control within 0.2%; if the GEMM is not a
#     programmatic launch, nothing moves (0.996x as in run_47ec1cd_llama)
#   decode_step: unchanged (there the kernel after the attention is a concatenation, launched plainly)
#   export: seven entries re-verify, CUBINs byte-identical to the CPU export; torch_tests 13 of 13
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so"
python=python3
python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
mkdir -p "$OUT/decode_step"
timeout 120 "$python" scripts/decode_step_probe.py --out "$OUT/decode_step" >"$OUT/decode_step/log.txt" 2>&1
grep "^skv" "$OUT/decode_step/log.txt" | cut -c1-260
timeout 440 scripts/gpu_production.sh build-device "$OUT" machine llama export torch_tests | tail -24
