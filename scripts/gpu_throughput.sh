#!/usr/bin/env bash
# Issue 10's GPU evidence (search throughput), on the device machine, in one call:
#   scripts/gpu_throughput.sh [BUILD_DIR] [OUT_DIR] [STEP...]
# Steps (default: all, in this order):
#   machine        GPU, driver, CPU count, the build's source commit
#   gpu_tests      the GPU tests (GPU check against the host check included)
#   compile_bench  compile-bench, NVRTC in 1/8/16 threads and in 1/8/16 processes: the smoke kernel (128
#                  variants) and real attention configs of the main problem (48)
#   search         the 300-trial search of the main problem (scripts/run.sh's), timed as a whole, with a
#                  fresh cubin cache so that every config really compiles
#   confirm        the search's winner beside earlier winners of the same problem, re-timed interleaved
#                  (A B C A B C ...) with evotune bench in this call: GPU state drifts by about 2% between
#                  minutes, more than separates the best configs, so only a side-by-side timing compares them
#   variants       the same search with other settings, for comparison ($SEARCH_VARIANTS, not in the default
#                  list), e.g. SEARCH_VARIANTS="o12=--evo offspring=12;o12l3=--evo offspring=12 --lookahead 3"
#   clocks         one more search with nvidia-smi sampling SM clock, power and temperature every 100 ms
#                  (not in the default list)
#   resume         scripts/gpu_resume.sh: a search killed with SIGKILL and resumed (not in the default list)
#   summary        summary.json from the above
# Writes every output under OUT_DIR (default $OUT, else gpu-results/); with $OUT set, packs OUT_DIR into
# $OUT/results.tgz after every step so a call cut off still returns what finished.
set -uo pipefail
cd "$(dirname "$0")/.."
output_name=throughput
default_steps=(machine gpu_tests compile_bench search confirm summary)
source scripts/gpu_common.sh "$@"  # arguments, environment, evotune, python, pack, checkpoint_db, the machine and gpu_tests steps
source scripts/main_search.sh  # main_problem, main_search_args: scripts/run.sh's search
problem="$main_problem"

# One timed search of the main problem into DIR, with a fresh cubin cache of its own (every config
# compiles): search.txt, search_summary.json (evotune search --summary-json), search_wall.txt (the whole
# command), search.db, log.txt, top.txt. Arguments after DIR replace main_search_args (scripts/run.sh's).
search_once() {
  local dir="$1"
  shift
  local db="$dir/search.db" cache="$dir/cache"
  rm -rf "$cache" "$db" "$db"-wal "$db"-shm
  local args=("$@")
  [[ ${#args[@]} -gt 0 ]] || args=("${main_search_args[@]}")
  local cmd=("$evotune" --cache-dir "$cache" search --problem "$problem" --db "$db"
             --summary-json "$dir/search_summary.json" "${args[@]}")
  local start_ns end_ns
  start_ns=$(date +%s%N)
  { echo "\$ ${cmd[*]}"; timeout 600 "${cmd[@]}"; echo "exit code $?"; } >"$dir/search.txt" 2>&1 || status=1
  end_ns=$(date +%s%N)
  echo "wall_s $(awk -v a="$start_ns" -v b="$end_ns" 'BEGIN { printf "%.2f", (b - a) / 1e9 }') (the whole command: workers and compile processes started, compiles, checks, timing, baselines)" \
    >"$dir/search_wall.txt"
  rm -rf "$cache"
  "$evotune" log --db "$db" >"$dir/log.txt" 2>&1
  "$evotune" top --db "$db" -n 10 >"$dir/top.txt" 2>&1
  checkpoint_db "$db"
  tail -n 4 "$dir/search.txt"; cat "$dir/search_wall.txt"
}

status=0
for s in "${steps[@]}"; do
  start=$SECONDS
  case "$s" in
    machine | gpu_tests)
      common_step "$s" || status=1 ;;
    compile_bench)
      { for kernel in smoke attention; do
          count=128
          [[ $kernel == attention ]] && count=48  # three rounds of 16: one slow compile weighs less
          cmd=("$evotune" compile-bench --kernel "$kernel" --problem "$problem" --count "$count" --threads 1,8,16
               --processes 1,8,16 --json-out "$out/compile_bench_$kernel.json")
          echo "\$ ${cmd[*]}"
          "${cmd[@]}"
        done; } >"$out/compile_bench.txt" 2>&1 || status=1
      cat "$out/compile_bench.txt" ;;
    search)
      search_once "$out" ;;
    variants)
      # The same search with other pipeline settings (what the defaults were chosen from), each with its
      # own fresh cache: NAME=ARGS pairs in $SEARCH_VARIANTS, separated by ';'.
      IFS=';' read -ra variants <<<"${SEARCH_VARIANTS:-}"
      for v in "${variants[@]}"; do
        name="${v%%=*}" args="${v#*=}"
        mkdir -p "$out/variant_$name"
        # shellcheck disable=SC2086
        search_once "$out/variant_$name" --devices 0 --budget 300 $args
      done ;;
    confirm)
      # The winner of issue 5's search (1024.2 us there) and of this issue's first pipelined search
      # (1024.1 us, evidence/results/h100/search-throughput/call2_ed33d1a), beside this search's winner.
      winner=$("$python" -c 'import json,sys; print(json.load(open(sys.argv[1]))["best_config"])' "$out/search_summary.json")
      configs=("$winner"
        "mma=mma_sync,block_m=64,block_n=64,warps=4,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=2,overlap=off,qk_split=1"
        "mma=mma_sync,block_m=64,block_n=64,warps=4,stages=2,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=1,overlap=off,qk_split=1")
      names=(search_winner issue5_winner call2_winner)
      rm -f "$out/confirm.jsonl"
      for round in 1 2 3 4; do
        for i in 0 1 2; do
          bench_record "$out/confirm.jsonl" name="${names[$i]}" round="$round" -- \
            --problem "$problem" --config "${configs[$i]}" --no-baseline --reps 50 || status=1
        done
      done
      "$python" - "$out/confirm.jsonl" >"$out/confirm.txt" <<'PY'
import json, statistics, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
print("interleaved re-timing, 4 rounds x 50 flushed samples each (evotune bench), same call:")
for name in dict.fromkeys(r["name"] for r in rows):
    mine = [r for r in rows if r["name"] == name]
    medians = [r["kernel"]["median_us"] for r in mine]
    print(f"  {name:<14} median of round medians {statistics.median(medians):9.2f} us  rounds {[round(m, 1) for m in medians]}"
          f"  check {'PASS' if all(r['check']['passed'] for r in mine) else 'FAIL'}  {mine[0]['config']}")
PY
      cat "$out/confirm.txt" ;;
    clocks)
      # The GPU's SM clock, power and temperature every 100 ms through one more search (fresh cache) and
      # its confirmation step: what the timings of a search sit on.
      mkdir -p "$out/clocks"
      TZ=UTC nvidia-smi --query-gpu=timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,utilization.gpu \
        --format=csv,nounits -lms 100 >"$out/clocks/clocks.csv" 2>&1 &
      smi=$!
      search_once "$out/clocks"
      kill "$smi" 2>/dev/null; wait "$smi" 2>/dev/null
      "$python" scripts/clock_phases.py "$out/clocks" >"$out/clocks/phases.txt" 2>&1 || status=1
      cat "$out/clocks/phases.txt" ;;
    resume)
      # A GPU search killed with SIGKILL mid-run (compile processes, lookahead and early dispatch all
      # running) and resumed: nothing lost, nothing twice, the budget exact.
      scripts/gpu_resume.sh "$build" "$out/resume" >"$out/resume_step.txt" 2>&1 || status=1
      tail -n 3 "$out/resume/resume.txt" ;;
    summary)
      "$python" scripts/throughput_summary.py "$out" >"$out/summary.json" || status=1
      cat "$out/summary.json" ;;
    *) echo "gpu_throughput: unknown step '$s'" >&2; exit 2 ;;
  esac
  echo "== $s: $((SECONDS - start)) s"
  pack
done
exit $status
