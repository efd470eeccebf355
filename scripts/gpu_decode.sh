#!/usr/bin/env bash
# Issue 11's GPU evidence (decode and short-query attention: split-KV, packed GQA, problem-aware
# defaults), on the device machine, in one call:
#   scripts/gpu_decode.sh [BUILD_DIR] [OUT_DIR] [STEP...]
# Steps (default: all, in this order):
#   machine    GPU, driver, CPU count, the build's source commit
#   gpu_tests  the GPU tests (split-KV, packed GQA and the launcher's split among them)
#   search     a search per problem (the issue's five, then the shapes beyond the list), fresh cubin cache
#              each; budget $DECODE_BUDGET (default 160; $EXTRA_BUDGET, default 100, for the extra shapes)
#   bench      per problem, interleaved in $BENCH_ROUNDS rounds (default 3): `evotune bench` without --config (the problem-aware
#              default) and with the search's confirmed winner, so both are timed in this call, side by side
#   sdpa       PyTorch SDPA, flash and cuDNN backends, the same problems, timed the way evotune times
#              (scripts/compare_sdpa.py: L2 flushed per sample, short calls as CUDA graphs of back-to-back calls)
#   summary    summary.json: one row per problem, {problem, default_us, best_us, best_config, sdpa_flash_us,
#              sdpa_cudnn_us, ...} (scripts/decode_summary.py)
# Problems: $DECODE_PROBLEMS and $EXTRA_PROBLEMS (space-separated) override the lists below. Every output
# goes under OUT_DIR (default $OUT, else gpu-results/); with $OUT set, OUT_DIR is packed into
# $OUT/results.tgz after every step so that a call cut off still returns what finished.
set -uo pipefail
cd "$(dirname "$0")/.."
output_name=decode
default_steps=(machine gpu_tests search bench sdpa summary)
source scripts/gpu_common.sh "$@"  # arguments, environment, evotune, python, pack, checkpoint_db, the machine and gpu_tests steps, search/bench/sdpa

# The issue's five rows, then shapes beyond them (the rules must be general): 8 heads per KV head, MHA
# decode (nothing to pack) with d=64, a group of 7 (not a power of two) with odd lengths, MQA decode.
read -ra problems <<<"${DECODE_PROBLEMS:-b=32,hq=32,hkv=8,sq=1,skv=4096,d=128,causal=0,dtype=fp16 b=8,hq=32,hkv=8,sq=1,skv=16384,d=128,causal=0,dtype=bf16 b=1,hq=32,hkv=8,sq=1,skv=2048,d=128,causal=0,dtype=fp16 b=1,hq=32,hkv=8,sq=128,skv=4096,d=128,causal=1,dtype=bf16 b=4,hq=64,hkv=8,sq=1,skv=4096,d=128,causal=0,dtype=bf16}"
read -ra extras <<<"${EXTRA_PROBLEMS:-b=16,hq=32,hkv=4,sq=1,skv=8192,d=128,causal=0,dtype=bf16 b=2,hq=16,hkv=16,sq=1,skv=32768,d=64,causal=0,dtype=fp16 b=1,hq=28,hkv=4,sq=61,skv=2000,d=128,causal=1,dtype=fp16 b=2,hq=8,hkv=1,sq=1,skv=5000,d=128,causal=0,dtype=bf16}"
budget="${DECODE_BUDGET:-160}"
extra_budget="${EXTRA_BUDGET:-100}"

status=0
for s in "${steps[@]}"; do
  start=$SECONDS
  case "$s" in
    machine | gpu_tests)
      common_step "$s" || status=1 ;;
    search)
      for p in "${problems[@]}" "${extras[@]}"; do
        b="$budget"
        [[ " ${extras[*]} " == *" $p "* ]] && b="$extra_budget"
        search_problem "$p" "$b" "$out/decode.db" 300 || status=1
      done
      checkpoint_db "$out/decode.db" ;;
    bench)
      # Default and winner, interleaved over 3 rounds; bench picks the default itself when given no --config.
      bench_default_and_winner "$out/bench.jsonl" "${BENCH_ROUNDS:-3}" 50 "${problems[@]}" "${extras[@]}" || status=1 ;;
    sdpa)
      sdpa_step 25 "${problems[@]}" "${extras[@]}" || status=1 ;;
    summary)
      "$python" scripts/decode_summary.py "$out" "${#problems[@]}" >"$out/summary.json" 2>"$out/summary.txt" || status=1
      cat "$out/summary.txt" ;;
    *) echo "gpu_decode: unknown step '$s'" >&2; exit 2 ;;
  esac
  echo "== $s: $((SECONDS - start)) s"
  pack
done
exit $status
