#!/usr/bin/env bash
# probe/call69: the final state of this session on the H100, each comparison timed one way (the sdpa step
# first; bench with cuDNN's batch; every trial of a search with its first trial's batch), in two calls:
#   run.sh run      the wgmma GPU tests; the six listed rows and four d=64 causal shapes (96-trial searches,
#                   3 bench rounds, SDPA)
#   run.sh heldout  call52's 18 held-out shapes and six short non-causal d=64 shapes used nowhere before (two
#                   that the 192-row walk rule moves), 48-trial searches, 3 bench rounds, SDPA
# Run from the repository root, build-device/ unpacked. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
case "${1:-}" in
  run)
    timeout 150 scripts/gpu_hopper.sh build-device "$OUT/checks" machine wgmma_tests
    HOPPER_PROBLEMS="$(grep -o 'HOPPER_PROBLEMS="[^"]*"' evidence/results/h100/hopper/probe/call58/run.sh | head -1 | cut -d'"' -f2)" \
    HOPPER_BUDGET=96 BENCH_ROUNDS=3 SEARCH_TIMEOUT=50 \
      timeout 420 scripts/gpu_hopper.sh build-device "$OUT/run" machine sdpa search bench summary
    cd "$OUT" && tar czf all.tgz checks run && rm -rf checks run results.tgz ;;
  heldout)
    HOPPER_PROBLEMS="$(grep -o 'HOPPER_PROBLEMS="[^"]*"' evidence/results/h100/hopper/probe/call52/run.sh | tail -1 | cut -d'"' -f2) b=9,hq=16,hkv=16,sq=384,skv=384,d=64,causal=0,dtype=bf16 b=13,hq=8,hkv=8,sq=576,skv=576,d=64,causal=0,dtype=fp16 b=2,hq=56,hkv=8,sq=448,skv=448,d=64,causal=0,dtype=fp16 b=18,hq=12,hkv=12,sq=320,skv=320,d=64,causal=0,dtype=bf16 b=11,hq=12,hkv=12,sq=384,skv=384,d=64,causal=0,dtype=fp16 b=33,hq=8,hkv=8,sq=384,skv=384,d=64,causal=0,dtype=bf16" \
    HOPPER_BUDGET=48 BENCH_ROUNDS=3 SEARCH_TIMEOUT=40 \
      timeout 560 scripts/gpu_hopper.sh build-device "$OUT/heldout" machine sdpa search bench summary
    cd "$OUT" && tar czf all.tgz heldout && rm -rf heldout results.tgz ;;
  *) echo "usage: run.sh run|heldout" >&2; exit 2 ;;
esac
