#!/usr/bin/env bash
# plain_combine found the programmatic combine costing the graphed LLaMA decode step ~2.7 us a layer (b2 x 2048).
# Before the launcher's default changes: the same comparison at three other shapes of the LLaMA run (the
# held-out ones of heldout_3c7dcb5: b1 x 1000, b4 x 1536, b2 x 3000; 64 decode steps; short runs: quality on
# the first model, 2 eager rounds, 2 prefill pairs). Binaries of 1abb179.
# Predictions, written before the call: at every shape evotune_plain_combine's graphed step is faster than
# evotune's by 1.5-3.5 us a layer (6-14 us a step) and at or ahead of SDPA's best.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
export EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so"
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
for shape in "1 1000" "4 1536" "2 3000"; do
  read -r batch prompt <<<"$shape"
  name="b${batch}_p${prompt}"
  timeout 170 "$python" scripts/llama_e2e.py --out "$OUT/$name" --batch "$batch" --prompt "$prompt" --steps 64 \
    --quality-seeds 0 --rounds 2 --prefill-pairs 2 --plain-combine >"$OUT/$name.txt" 2>&1
  echo "$name: exit $?"; grep -E "CUDA graphs \(ms" "$OUT/$name.txt"
done
