# What the GPU evidence scripts share (sourced, not run; gpu_throughput.sh, gpu_decode.sh, gpu_hopper.sh,
# gpu_production.sh, gpu_deploy_safety.sh, lab/scripts/gpu_decode_probe.sh): their arguments, the environment
# on the device machine, the common steps, bench records, packing the outputs, and folding a database's WAL into it.
#
# The sourcing script sets `output_name` (its folder under OUT_DIR) and `default_steps`, then sources this
# file with its own arguments, [BUILD_DIR] [OUT_DIR] [STEP...]; this sets `build` (default build-device),
# `out` (OUT_DIR, default $OUT, else gpu-results; plus output_name) and `steps` (default default_steps).
build="${1:-build-device}"
out="${2:-${OUT:-gpu-results}}/$output_name"
shift $(($# < 2 ? $# : 2))
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] || steps=("${default_steps[@]}")
mkdir -p "$out"

export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EVOTUNE_SOURCE_DIR="$PWD"  # the tests find the checkout's fixtures here
evotune="$build/cli/evotune"
python=python3
python3 -c "import torch" 2>/dev/null || python=/opt/torch/.venv/bin/python3

# With $OUT set (the device tool), packs the output folder into $OUT/results.tgz, so a call cut off at its
# time limit still returns what finished; call it after every step.
pack() { [[ -n "${OUT:-}" ]] && tar czf "$OUT/results.tgz" -C "$(dirname "$out")" "$(basename "$out")"; true; }

# bench_record FILE KEY=VALUE... -- BENCH_ARG...: one `evotune bench BENCH_ARG... --json` record, with
# the KEY=VALUE tags added (all-digit values as numbers), appended to FILE as one line. Fails when bench
# does; its stderr is the caller's.
bench_record() {
  local file="$1" tags=()
  shift
  while [[ $# -gt 0 && $1 != -- ]]; do tags+=("$1"); shift; done
  shift
  "$evotune" bench "$@" --json | "$python" -c '
import json, sys
record = json.load(sys.stdin)
for tag in sys.argv[1:]:
    key, value = tag.split("=", 1)
    record[key] = int(value) if value.isdigit() else value
print(json.dumps(record))' "${tags[@]}" >>"$file"
}

# The database in one file (its WAL folded in), to travel back as evidence.
checkpoint_db() {
  "$python" -c 'import sqlite3, sys; sqlite3.connect(sys.argv[1]).execute("PRAGMA wal_checkpoint(TRUNCATE)")' "$1"
}

# The steps every GPU script has; returns 2 for a step that is not one of them, else the step's status.
#   machine    GPU, driver, CPU count, the build's source commit -> machine.txt
#   gpu_tests  the GPU tests -> gpu_tests.txt
common_step() {
  case "$1" in
    machine)
      { date -u +"%Y-%m-%dT%H:%M:%SZ"
        nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv
        echo "cpus: $(nproc) ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2))"
        echo "source: $(tr '\n' ' ' <"$build/source_commit.txt")"
        "$evotune" --version; } >"$out/machine.txt" 2>&1
      return 0 ;;
    gpu_tests)
      local rc=0
      "$build/tests/evotune_tests" --gtest_color=no --gtest_filter='Gpu*' >"$out/gpu_tests.txt" 2>&1 || rc=1
      grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED" "$out/gpu_tests.txt"
      return $rc ;;
    *) return 2 ;;
  esac
}

# A problem as a folder name.
slug() { echo "$1" | tr ',=' '_-'; }

# search_problem PROBLEM BUDGET DB TIME_LIMIT_S: an evo search of PROBLEM on device 0 (fresh cubin cache,
# removed after) into DB; its output (search.txt, with the command) and --summary-json go under
# $out/search/<slug>/. Prints its summary and winner lines; fails when the search does.
search_problem() {
  local p="$1" budget="$2" db="$3" limit="$4" dir rc
  dir="$out/search/$(slug "$p")"
  rm -rf "$dir"
  mkdir -p "$dir"
  local cmd=("$evotune" --cache-dir "$dir/cache" search --problem "$p" --db "$db" --devices 0 --budget "$budget"
             --evo offspring=16 --lookahead 3 --history 0 --summary-json "$dir/summary.json")
  { echo "\$ ${cmd[*]}"; timeout "$limit" "${cmd[@]}"; rc=$?; echo "exit code $rc"; } >"$dir/search.txt" 2>&1
  rm -rf "$dir/cache"
  echo "$p: $(grep -E '^run [0-9]+:' "$dir/search.txt" | head -1)"
  grep -E '^winner:' "$dir/search.txt"
  return $rc
}

# library_batch PROBLEM: the launches per sample cuDNN's SDPA was timed with on PROBLEM in $out/sdpa.csv
# (the sdpa step's), or nothing when there is no such row. bench takes it as --batch, so that both sides of
# the comparison are timed one way (harness/timer.h): a kernel just under 20 us is otherwise timed as a
# CUDA graph (its later launches find their inputs in L2) and one just over it alone.
library_batch() {
  [[ -f "$out/sdpa.csv" ]] || return 0
  "$python" -c '
import csv, sys
for row in csv.DictReader(open(sys.argv[1])):
    if row["problem"] == sys.argv[2] and row["backend"] == "cudnn" and row["batch"]:
        print(row["batch"])
        break' "$out/sdpa.csv" "$1"
}

# bench_default_and_winner FILE ROUNDS REPS PROBLEM...: per round and problem, bench_record of the
# problem-aware default (bench without --config, which=default) and of the winner search_problem recorded
# (which=best; skipped without one), interleaved so both see the same conditions, each with cuDNN's
# batch when the sdpa step ran first (library_batch). Stderr goes to $out/bench_stderr.txt; fails when a
# bench did.
bench_default_and_winner() {
  local file="$1" rounds="$2" reps="$3" rc=0 round p which winner batch
  shift 3
  rm -f "$file"
  for round in $(seq 1 "$rounds"); do
    for p in "$@"; do
      batch=$(library_batch "$p")
      winner=$("$python" -c 'import json,sys; s=json.load(open(sys.argv[1])); print(s.get("confirmed_best_config") or s.get("best_config") or "")' \
        "$out/search/$(slug "$p")/summary.json" 2>/dev/null)
      for which in default best; do
        local args=(--problem "$p" --no-baseline --reps "$reps" ${batch:+--batch "$batch"})
        if [[ $which == best ]]; then
          [[ -n "$winner" ]] || continue
          args+=(--config "$winner")
        fi
        bench_record "$file" which="$which" round="$round" -- "${args[@]}" 2>>"$out/bench_stderr.txt" || rc=1
      done
    done
  done
  wc -l "$file"
  return $rc
}

# sdpa_step LINES PROBLEM...: PyTorch SDPA, flash and cuDNN backends, on the problems, timed the way evotune
# times (scripts/compare_sdpa.py) -> $out/sdpa.{csv,md,txt}; prints the last LINES lines. $SDPA_BATCH, when
# set, fixes the calls per sample (compare_sdpa.py --batch; 1: single calls, whatever their length).
sdpa_step() {
  local lines="$1" rc=0 args=() p
  shift
  for p in "$@"; do args+=(--problem "$p"); done
  [[ -z "${SDPA_BATCH:-}" ]] || args+=(--batch "$SDPA_BATCH")
  "$python" scripts/compare_sdpa.py "${args[@]}" --backends flash,cudnn --csv "$out/sdpa.csv" \
    --markdown "$out/sdpa.md" >"$out/sdpa.txt" 2>&1 || rc=1
  tail -n "$lines" "$out/sdpa.txt"
  return $rc
}
