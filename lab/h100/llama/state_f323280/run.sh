#!/usr/bin/env bash
# What in the full LLaMA run's state costs evotune's graphed decode step its 0.4%, when short runs are level or
# ahead (layers_f323280, layers_again_f323280)? The 4-layer run three ways in one call, each ending with the
# graphed decode as always: A short (quality on one model, 2 eager rounds, 2 prefill pairs); B with 19 more
# models drawn and generated first (--quality-seeds 19; memory churn, a minute of GPU work); C with the full
# eager timings (15 rounds, 40 prefill pairs; two minutes of host-bound steps) but one model. nvidia-smi logs
# the SM clock, temperature and power every 200 ms throughout (smi.csv), to set beside the logs' times.
# Predictions, written before the call: A 0.999-1.003x SDPA's best; B 0.994-0.998x (the models drawn first
# are what the full runs share); C 0.999-1.003x; the SM clock at 1980 MHz in all three graphed phases.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
export EVOTUNE_CAPI_LIBRARY="$PWD/build-device/runtime/libevotune_capi.so"
python=python3; python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3
nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv -lms 200 >"$OUT/smi.csv" &
smi=$!
run() {
  local name=$1; shift
  timeout 260 "$python" scripts/llama_e2e.py --out "$OUT/$name" "$@" >"$OUT/$name.txt" 2>&1
  echo "$name: exit $?"; grep -E "CUDA graphs \(ms" "$OUT/$name.txt"
}
run A_short --quality-seeds 0 --rounds 2 --prefill-pairs 2
run B_models --quality-seeds 19 --rounds 2 --prefill-pairs 2
run C_timings --quality-seeds 0
kill $smi
