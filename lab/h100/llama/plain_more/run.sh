#!/usr/bin/env bash
# The combine launched plainly or as a programmatic dependent launch, in the graphed LLaMA decode step, at more
# shapes (plain_shapes was split: plain better at b2 x 3000, worse at b4 x 1536): b2 x 2048 again (another
# instance), b1 x 2048, b1 x 4096, b2 x 1024, b4 x 2048, b8 x 1024; 32 decode steps, short runs, JIT allowed
# for shapes the table does not cover. Binaries of 1abb179.
# Predictions, written before the call: plain faster than the programmatic combine at 4 or more of the 6.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64 EVOTUNE_JIT=1
export EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so"
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
for shape in "2 2048" "1 2048" "1 4096" "2 1024" "4 2048" "8 1024"; do
  read -r batch prompt <<<"$shape"
  name="b${batch}_p${prompt}"
  timeout 120 "$python" scripts/llama_e2e.py --out "$OUT/$name" --batch "$batch" --prompt "$prompt" --steps 32 \
    --quality-seeds 0 --rounds 2 --prefill-pairs 2 --plain-combine >"$OUT/$name.txt" 2>&1
  echo "$name: exit $?"; grep -E "CUDA graphs \(ms" "$OUT/$name.txt" | sed 's/.*mean over steps [0-9, ]*): //'
done
