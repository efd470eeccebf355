#!/usr/bin/env bash
# Issue 48's GPU evidence (nothing a user runs may hang or run outside its proof), on the device machine:
#   scripts/gpu_deploy_safety.sh [BUILD_DIR] [OUT_DIR] [STEP...]
# Steps (default: all, in this order):
#   machine  GPU, driver, CPU count, the build's source commit
#   fuzz     the PyTorch op over the committed shapes (tests/data/op_fuzz_shapes.json, shape 0 the problem
#            that hung) in worker processes under a watchdog, shape 0 also timed beside SDPA's flash and cuDNN
#            backends (scripts/op_fuzz.py) -> summary.json, records.jsonl, fuzz.txt
# Outputs go under OUT_DIR/deploy-safety (default $OUT, else gpu-results/); with $OUT set they are packed into
# $OUT/results.tgz after every step.
set -uo pipefail
cd "$(dirname "$0")/.."
output_name=deploy-safety
default_steps=(machine fuzz)
source scripts/gpu_common.sh "$@"
export EVOTUNE_CAPI_LIBRARY="$PWD/$build/runtime/libevotune_capi.so"
export EVOTUNE_CACHE_DIR="${EVOTUNE_CACHE_DIR:-/tmp/evotune-cache}"

status=0
for s in "${steps[@]}"; do
  start=$SECONDS
  case "$s" in
    machine)
      common_step "$s" || status=1 ;;
    fuzz)
      "$python" scripts/op_fuzz.py run tests/data/op_fuzz_shapes.json --out "$out" --workers "${FUZZ_WORKERS:-8}" \
        --time-first ${FUZZ_ARGS:-} >"$out/fuzz.txt" 2>&1 || status=1
      tail -n 30 "$out/fuzz.txt" ;;
    *)
      echo "unknown step '$s'" >&2
      exit 2 ;;
  esac
  echo "[$s: $((SECONDS - start)) s]"
  pack
done
exit $status
