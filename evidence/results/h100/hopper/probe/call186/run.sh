#!/usr/bin/env bash
# probe/call186 (2026-11-27, seventh session): how often the process-level bimodality of four-CTA wgmma configs
# (prepare_kernel's comment) comes: call184's survey shape b18 hq24 hkv3 sq229 skv229 d64 bf16 (rounds of 26.72
# and 41.94 us there; six steady rounds of 26.5 in call185) in 24 bench processes, the default config.
# Prediction, written before the call: at least one of the 24 rounds 1.3x+ slower than the fastest (call184:
# 1 of 2; call185: 0 of 6; run_427d016 and heldout_427d016: 2 of 30 processes of such configs).
# Needs a build of c0d2b14 or later (DEVICE_PACK=cli is enough).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
HOPPER_PROBLEMS="b=18,hq=24,hkv=3,sq=229,skv=229,d=64,causal=0,dtype=bf16" BENCH_ROUNDS=24 HOPPER_CONFIGS=default \
  timeout 200 scripts/gpu_hopper.sh build-device "$OUT/bimodal" machine sdpa probe | grep -E "us .*TFLOP" | head -30
cd "$OUT" && tar czf all.tgz bimodal && rm -rf bimodal results.tgz
