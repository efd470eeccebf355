#!/usr/bin/env bash
# Issue 48's GPU evidence (nothing a user runs may hang or run outside its proof), on the device machine:
#   scripts/gpu_deploy_safety.sh [BUILD_DIR] [OUT_DIR] [STEP...]
# Steps (default: all, in this order):
#   machine  GPU, driver, CPU count, the build's source commit
#   fuzz     the PyTorch op over the committed shapes (tests/data/op_fuzz_shapes.json, shape 0 the problem
#            that hung) in worker processes under a watchdog, shape 0 also timed beside SDPA's flash and cuDNN
#            backends (scripts/op_fuzz.py) -> summary.json, records.jsonl, fuzz.txt
#   interrupt  a GPU search of 40 trials sent SIGINT once 5 trials are recorded: exit 130, one line naming
#            the resume command, the run `interrupted` with what finished; then that command, run as
#            printed, finishes the run -> interrupt/ (search.txt, resume.txt, runs.txt, search.db)
# Outputs go under OUT_DIR/deploy-safety (default $OUT, else gpu-results/); with $OUT set they are packed into
# $OUT/results.tgz after every step.
set -uo pipefail
cd "$(dirname "$0")/.."
output_name=deploy-safety
default_steps=(machine fuzz interrupt)
source scripts/gpu_common.sh "$@"
export EVOTUNE_CAPI_LIBRARY="$PWD/$build/deploy/libevotune_capi.so"
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
    interrupt)
      dir="$out/interrupt"
      rm -rf "$dir"
      mkdir -p "$dir"
      db="$dir/search.db"
      "$evotune" search --problem "${INTERRUPT_PROBLEM:-b=2,hq=32,hkv=8,sq=2048,skv=2048,d=128,causal=1,dtype=bf16}" \
        --budget 40 --seed 7 --library-baseline off --db "$db" >"$dir/search.txt" 2>&1 &
      pid=$!
      for _ in $(seq 1 600); do  # until 5 trials are recorded (or the search ends), at most 5 minutes
        n=$("$python" -c 'import sqlite3, sys
try: print(sqlite3.connect(sys.argv[1]).execute("SELECT COUNT(*) FROM trials").fetchone()[0])
except Exception: print(0)' "$db" 2>/dev/null)
        [[ ${n:-0} -ge 5 ]] && break
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.5
      done
      kill -INT "$pid"
      wait "$pid"
      code=$?
      echo "exit code $code (trials recorded when interrupted: ${n:-0})" >>"$dir/search.txt"
      resume=$(grep -o 'continue it with: .*' "$dir/search.txt" | sed 's/^continue it with: //')
      "$evotune" runs --db "$db" >"$dir/runs_interrupted.txt" 2>&1
      { echo "\$ $resume"; sh -c "$resume"; echo "exit code $?"; } >"$dir/resume.txt" 2>&1
      "$evotune" runs --db "$db" >"$dir/runs.txt" 2>&1
      checkpoint_db "$db"
      grep -E "interrupted|exit code" "$dir/search.txt"
      cat "$dir/runs_interrupted.txt" "$dir/runs.txt"
      tail -n 3 "$dir/resume.txt"
      [[ $code -eq 130 && -n $resume ]] || status=1 ;;
    *)
      echo "unknown step '$s'" >&2
      exit 2 ;;
  esac
  echo "[$s: $((SECONDS - start)) s]"
  pack
done
exit $status
