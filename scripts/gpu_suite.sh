#!/usr/bin/env bash
# Everything that needs the GPU, for the device machine:
#   scripts/gpu_suite.sh [BUILD_DIR] [OUT_DIR] [STEP...]
# Runs against a build made elsewhere (default build/) and writes every output to OUT_DIR (default
# $OUT, else gpu-results/). With no STEP, all steps run, in this order:
#   version devices selftest tests compile_bench attention_bench resume search_fp16 search_bf16
#   tests            the full test suite, GPU tests included
#   gpu_tests        only the tests that need a GPU (not in the default list: `tests` has them)
#   attention_bench  the attention table: evotune configs, cuBLAS baseline, PyTorch SDPA (scripts/bench_attention.sh)
#   resume           a GPU search killed with SIGKILL and resumed (scripts/gpu_resume.sh)
#   search_fp16      search b4 hq16 s4096 d128 fp16 causal, winner beside SDPA (scripts/gpu_search.sh)
#   search_bf16      search b1 hq32 hkv8 s4096 d128 bf16 causal, winner beside SDPA
#   history          a search seeded from the committed fp16 search's database (not in the default list)
# SEARCH_BUDGET (default 300) sets the searches' budget. If $OUT is set, OUT_DIR is packed into
# $OUT/results.tgz after every step, so a call stopped at its time limit still returns what finished.
# The last lines printed are a summary.
set -uo pipefail
cd "$(dirname "$0")/.."
build="${1:-build}"
out="${2:-${OUT:-gpu-results}}"
shift $(($# < 2 ? $# : 2))
steps=("$@")
[[ ${#steps[@]} -gt 0 ]] ||
  steps=(version devices selftest tests compile_bench attention_bench resume search_fp16 search_bf16)
mkdir -p "$out"
export LD_LIBRARY_PATH="/usr/local/cuda/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
export EVOTUNE_CACHE_DIR="${EVOTUNE_CACHE_DIR:-/tmp/evotune-cache}"
evotune="$build/cli/evotune"
budget="${SEARCH_BUDGET:-300}"
# Generation size 16 instead of 6 at this budget: as good on the T4 replays (docs/searching.md, "Choosing the evo
# defaults"), and with lookahead 2 it keeps 16 compile processes busy (docs/searching.md, "Lookahead").
export SEARCH_EVO="${SEARCH_EVO-offspring=16}"

declare -A results
step() {  # step NAME FILE COMMAND...: run, keep output in FILE, remember the exit code
  local name="$1" file="$2"
  shift 2
  local start=$SECONDS
  { echo "\$ $*"; "$@"; } >"$out/$file" 2>&1
  results[$name]=$?
  echo "== $name: exit ${results[$name]} in $((SECONDS - start)) s ($out/$file)"
  if [[ -n "${OUT:-}" && "$(realpath "$out")" != "$(realpath "$OUT")" ]]; then
    tar czf "$OUT/results.tgz" -C "$(dirname "$out")" "$(basename "$out")"
  fi
}

{
  date -u +"%Y-%m-%dT%H:%M:%SZ"
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,clocks.max.mem --format=csv 2>&1
  echo "source: $(tr "\n" " " <"$build/source_commit.txt" 2>/dev/null || echo "unknown (no $build/source_commit.txt)")"
} >"$out/machine.txt"
for s in "${steps[@]}"; do
  case "$s" in
    version) step version version.txt "$evotune" --version ;;
    devices)
      step devices devices.txt "$evotune" devices
      step devices_json devices.json "$evotune" devices --json ;;
    selftest)
      step selftest selftest.txt "$evotune" selftest --variants 16
      # Again, now answered from the cubin cache: the resource report must survive the round trip.
      step selftest_cached selftest_cached.txt "$evotune" selftest --variants 16 ;;
    tests) step tests tests.txt "$build/tests/evotune_tests" --gtest_color=no ;;
    gpu_tests) step gpu_tests gpu_tests.txt "$build/tests/evotune_tests" --gtest_color=no --gtest_filter='Gpu*' ;;
    compile_bench) step compile_bench compile_bench.txt "$evotune" compile-bench --count 64 --threads 16 ;;
    attention_bench) step attention_bench attention_bench.txt scripts/bench_attention.sh "$build" "$out/attention" ;;
    resume) step resume resume_step.txt scripts/gpu_resume.sh "$build" "$out/resume" ;;
    search_fp16)
      step search_fp16 search_fp16.txt scripts/gpu_search.sh "$build" "$out/search_fp16" "$budget" \
        b=4,hq=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 ;;
    search_bf16)
      step search_bf16 search_bf16.txt scripts/gpu_search.sh "$build" "$out/search_bf16" "$budget" \
        b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 ;;
    history)
      # Seeds from a neighbouring problem: a copy of the committed fp16 search database, then a 100-trial
      # search of b2 (half the batch) that starts from run 1's winner (distance 1).
      mkdir -p "$out/history"
      cp evidence/results/h100/issue4-search/search_fp16/search.db "$out/history/history.db"
      step history history/search.txt "$evotune" search --problem b=2,hq=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 \
        --budget 100 ${SEARCH_EVO:+--evo "$SEARCH_EVO"} --devices 0 --db "$out/history/history.db"
      "$evotune" log --db "$out/history/history.db" --run 2 >"$out/history/log.txt" 2>&1
      "$evotune" top --db "$out/history/history.db" --run 2 -n 10 >"$out/history/top.txt" 2>&1 ;;
    *) echo "gpu_suite: unknown step '$s'" >&2; exit 2 ;;
  esac
done

echo
echo "summary:"
status=0
for name in "${!results[@]}"; do
  printf '  %-16s %s\n' "$name" "$([[ ${results[$name]} -eq 0 ]] && echo ok || echo "FAILED (exit ${results[$name]})")"
  [[ ${results[$name]} -eq 0 ]] || status=1
done
for f in "$out/tests.txt" "$out/gpu_tests.txt"; do
  [[ -f "$f" ]] && grep -E "^\[  (PASSED|FAILED|SKIPPED) " "$f" | head -20
done
exit $status
