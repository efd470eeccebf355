#!/usr/bin/env bash
# probe/call58: the final state of this session's rules (call54's bounds, call56's small grids) and
# 11a0846's kernels on the H100, in two calls:
#   run.sh run      the wgmma GPU tests, the sanitizers on a small-grid default (causal GQA with a tail),
#                   the six listed rows and four d=64 causal shapes (96-trial searches, 3 bench rounds, SDPA)
#   run.sh heldout  call52's 18 held-out shapes (48-trial searches, 3 bench rounds, SDPA)
# Run from the repository root, build-device/ unpacked. Packed into $OUT/all.tgz.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
case "${1:-}" in
  run)
    SANITIZE_PROBLEM="b=1,hq=40,hkv=8,sq=200,skv=200,d=64,causal=1,dtype=bf16" \
      timeout 150 scripts/gpu_hopper.sh build-device "$OUT/checks" machine wgmma_tests sanitize
    HOPPER_PROBLEMS="b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=1,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=2048,skv=2048,d=64,causal=0,dtype=bf16 b=2,hq=32,hkv=4,sq=8192,skv=8192,d=128,causal=1,dtype=bf16 b=32,hq=8,hkv=8,sq=256,skv=256,d=64,causal=1,dtype=fp16 b=16,hq=16,hkv=16,sq=1024,skv=1024,d=64,causal=1,dtype=fp16 b=4,hq=32,hkv=8,sq=2048,skv=2048,d=64,causal=1,dtype=bf16 b=2,hq=24,hkv=24,sq=1536,skv=1536,d=64,causal=1,dtype=fp16" \
    HOPPER_BUDGET=96 BENCH_ROUNDS=3 SEARCH_TIMEOUT=50 \
      timeout 400 scripts/gpu_hopper.sh build-device "$OUT/run" machine search bench sdpa summary
    cd "$OUT" && tar czf all.tgz checks run && rm -rf checks run results.tgz ;;
  heldout)
    HOPPER_PROBLEMS="$(grep -o 'HOPPER_PROBLEMS="[^"]*"' evidence/results/h100/hopper/probe/call52/run.sh | tail -1 | cut -d'"' -f2)" \
    HOPPER_BUDGET=48 BENCH_ROUNDS=3 SEARCH_TIMEOUT=40 \
      timeout 540 scripts/gpu_hopper.sh build-device "$OUT/heldout" machine search bench sdpa summary
    cd "$OUT" && tar czf all.tgz heldout && rm -rf heldout results.tgz ;;
  *) echo "usage: run.sh run|heldout" >&2; exit 2 ;;
esac
