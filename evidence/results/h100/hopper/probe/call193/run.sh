#!/usr/bin/env bash
# probe/call193 (2026-11-27, eighth session): the issue's six rows again at the final code, no search: each
# row's searched winner from summary.json (run_355d353; the kernel sources have not changed since) and the
# problem-aware default, three rounds beside SDPA flash and cuDNN, each side timed with cuDNN's batch.
# Predictions, written before the call: every row's winner at or above cuDNN (summary.json: 1.051-1.586x),
# within 3% of its summary.json best_us; b4 hq16 s4096 d128 fp16 at 650+ TFLOP/s.
# Needs a build of 0ac4626 or later (DEVICE_PACK=cli is enough). ~3 minutes.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
python3 - > "$OUT/rows.txt" <<'PY'
import json
for row in json.load(open("evidence/results/h100/hopper/summary.json"))[:6]:
    print(row["problem"], row["best_config"])
PY
n=0
while read -r problem config; do
  n=$((n + 1))
  HOPPER_PROBLEMS="$problem" BENCH_ROUNDS=3 HOPPER_CONFIGS="$config;default" \
    timeout 80 scripts/gpu_hopper.sh build-device "$OUT/row$n" machine sdpa probe | grep -v "^[123] b=" | tail -1
done < "$OUT/rows.txt"
cd "$OUT" && tar czf all.tgz rows.txt row* && rm -rf row* results.tgz
