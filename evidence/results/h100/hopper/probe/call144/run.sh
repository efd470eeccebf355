#!/usr/bin/env bash
# probe/call144: (1) held out, build against build: non-causal d=128 on the persistent walk (the rule after
# 6dfc567), ten shapes whose default it moves (draw_shapes.py -> shapes.txt) and the b4 hq16 s4096
# d128 fp16 row, this build's default against 6dfc567's (build-base), two rounds beside SDPA, each side timed
# with cuDNN's batch; (2) at this session's final rules: every C++ GPU test, the PyTorch op's GPU tests and
# the AOT example.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
source evidence/results/h100/hopper/probe/call144/shapes.txt  # HELD
HOPPER_PROBLEMS="$HELD" timeout 40 scripts/gpu_hopper.sh build-device "$OUT/held" machine sdpa | tail -2
BASE_BUILD=build-base HOPPER_PROBLEMS="$HELD" HOPPER_CONFIGS=default BENCH_ROUNDS=2 \
  timeout 120 scripts/gpu_hopper.sh build-device "$OUT/held" probe | grep -v "^[12] b="
cat build-base/source_commit.txt
timeout 230 scripts/gpu_hopper.sh build-device "$OUT/tests" gpu_tests
timeout 195 scripts/gpu_production.sh build-device "$OUT/production" torch_tests example
cd "$OUT" && tar czf all.tgz held tests production && rm -rf held tests production results.tgz
