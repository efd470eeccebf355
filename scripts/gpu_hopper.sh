#!/usr/bin/env bash
# Issue 12's GPU work (mma=wgmma, the Hopper mainloop), on the device machine, in one call:
#   scripts/gpu_hopper.sh [BUILD_DIR] [OUT_DIR] [STEP...]
# Steps (default: machine wgmma_tests sdpa probe):
#   machine      GPU, driver, CPU count, the build's source commit
#   wgmma_tests  the wgmma GPU test (every feature against the reference), under a time limit: a pipeline
#                that deadlocks shows up as a timeout, not a stuck call
#   gpu_tests    every GPU test
#   probe        `evotune bench` of each config in $HOPPER_CONFIGS (';'-separated; default: the
#                problem-aware default and five wgmma configs) on each problem, in $BENCH_ROUNDS rounds
#                (default 2) -> probe.jsonl. "default" is the problem-aware default; "default,NAME=VALUE,..."
#                is that default with those tunables changed (bench reads it). With $BASE_BUILD (a second
#                build folder, e.g. the commit before a rule change) each config also runs on that build,
#                interleaved with this one; its records carry build=base, this build's build=new
#   sdpa         PyTorch SDPA, flash and cuDNN backends, the same problems, timed the way evotune times
#                (scripts/compare_sdpa.py) -> sdpa.csv. Run it before probe and bench: they then time each
#                problem with the launches per sample cuDNN was timed with (library_batch in gpu_common.sh)
#   search       `evotune search` per problem, budget $HOPPER_BUDGET (default 32), fresh cubin cache each
#   bench        per problem, the problem-aware default and the search's winner, $BENCH_ROUNDS rounds
#   summary      summary.json: {problem, best_us, tflops, best_config, sdpa_flash_us, sdpa_cudnn_us,
#                compile_s_median, ...} per problem (scripts/hopper_summary.py)
#   ncu          Nsight Compute (--set full, one launch each) of evotune's kernel and SDPA cuDNN's on each of
#                $NCU_PROBLEMS (space-separated; default: the first problem), evotune with each config of
#                $NCU_CONFIGS (';'-separated; default: the problem-aware default) -> ncu_*.txt (details
#                page), ncu_*.csv (raw metrics) and ncu_*.sass.csv (per-instruction counts and stall samples)
#   sanitize     compute-sanitizer memcheck, racecheck and synccheck on a small causal GQA shape with tails
#                ($SANITIZE_PROBLEM overrides it), for $SANITIZE_CONFIG (default: the problem-aware default,
#                wgmma on the H100)
# Problems: $HOPPER_PROBLEMS (space-separated) overrides the list below. Outputs go under OUT_DIR/hopper
# (default $OUT, else gpu-results/); with $OUT set they are packed into $OUT/results.tgz after every step.
set -uo pipefail
cd "$(dirname "$0")/.."
output_name=hopper
default_steps=(machine wgmma_tests sdpa probe)
source scripts/gpu_common.sh "$@"

# The issue's six rows, in the canonical form bench and compare_sdpa.py write (the summary matches on it).
read -ra problems <<<"${HOPPER_PROBLEMS:-b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=1,dtype=fp16 b=1,hq=32,hkv=8,sq=4096,skv=4096,d=128,causal=1,dtype=bf16 b=1,hq=8,hkv=8,sq=512,skv=512,d=64,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=2048,skv=2048,d=64,causal=0,dtype=bf16 b=2,hq=32,hkv=4,sq=8192,skv=8192,d=128,causal=1,dtype=bf16}"
w="mma=wgmma,overlap=on"
IFS=';' read -ra configs <<<"${HOPPER_CONFIGS:-default;$w,block_m=128,block_n=128,stages=2,pingpong=on,producer_regs=24;$w,block_m=128,block_n=176,stages=2,pingpong=on,producer_regs=24;$w,block_m=128,block_n=128,stages=3,pingpong=on,producer_regs=24;$w,block_m=192,block_n=128,stages=2,pingpong=on,producer_regs=32;$w,block_m=64,block_n=128,stages=3}"

# A kernel that deadlocks must not take the call with it. $bench_binary, set for one call, picks another build.
bench_with_time_limit() { timeout 120 "${bench_binary:-$build/cli/evotune}" "$@"; }

status=0
for s in "${steps[@]}"; do
  start=$SECONDS
  case "$s" in
    machine | gpu_tests)
      common_step "$s" || status=1 ;;
    wgmma_tests)
      timeout 300 "$build/tests/evotune_tests" --gtest_color=no --gtest_filter='GpuAttention.Wgmma*' \
        >"$out/wgmma_tests.txt" 2>&1 || { status=1; echo "wgmma tests: exit $?"; }
      grep -E "^\[  (PASSED|FAILED|SKIPPED) |^\[  FAILED|Failure|error" "$out/wgmma_tests.txt" | head -40 ;;
    probe)
      rm -f "$out/probe.jsonl"
      for round in $(seq 1 "${BENCH_ROUNDS:-2}"); do
        for p in "${problems[@]}"; do
          batch=$(library_batch "$p")
          for c in "${configs[@]}"; do
            args=(--problem "$p" --no-baseline --reps 30 ${batch:+--batch "$batch"})
            [[ $c == default ]] || args+=(--config "$c")
            for side in new ${BASE_BUILD:+base}; do
              binary="$build/cli/evotune" tags=(round="$round" which="$c")
              [[ $side == base ]] && binary="$BASE_BUILD/cli/evotune"
              [[ -n "${BASE_BUILD:-}" ]] && tags+=(build="$side")
              # bench_binary only for this call: the steps after the probe bench this build again.
              bench_binary="$binary" evotune=bench_with_time_limit bench_record "$out/probe.jsonl" "${tags[@]}" \
                -- "${args[@]}" 2>>"$out/probe_stderr.txt" || { status=1; echo "bench failed: $p | $c ($side build)"; }
            done
          done
        done
      done
      "$python" -c '
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    f = dict(kv.split("=") for kv in r["problem"].split(","))
    flops = 4.0 * int(f["b"]) * int(f["hq"]) * int(f["sq"]) * int(f.get("skv", f["sq"])) * int(f["d"])
    if f.get("causal") == "1": flops /= 2
    us = (r.get("kernel") or {}).get("median_us")
    tf = f"{flops / us / 1e6:7.1f}" if us else "      -"
    print(r["round"], r["problem"][:44].ljust(44), f"{us or 0:9.1f} us", tf, "TFLOP/s",
          "ok " if r.get("check", {}).get("passed") else "BAD", r["which"][:96], r.get("build", ""))' "$out/probe.jsonl" 2>&1 | tail -40 ;;
    search)
      # A search per problem, budget $HOPPER_BUDGET (default 32); its first generation starts from the
      # problem-aware default.
      for p in "${problems[@]}"; do
        search_problem "$p" "${HOPPER_BUDGET:-32}" "$out/hopper.db" "${SEARCH_TIMEOUT:-150}" || status=1
      done
      checkpoint_db "$out/hopper.db" ;;
    bench)
      # The problem-aware default and the search's winner, interleaved in $BENCH_ROUNDS rounds (default 2).
      evotune=bench_with_time_limit bench_default_and_winner "$out/bench.jsonl" "${BENCH_ROUNDS:-2}" 30 \
        "${problems[@]}" || status=1 ;;
    summary)
      "$python" scripts/hopper_summary.py "$out" >"$out/summary.json" 2>"$out/summary.txt" || status=1
      cat "$out/summary.txt" ;;
    sdpa)
      sdpa_step 12 "${problems[@]}" || status=1 ;;
    ncu)
      ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      # ncu_profile NAME KERNEL_REGEX SKIP COMMAND...: one launch of COMMAND's kernels matching the regex,
      # after SKIP others, into NAME.ncu-rep, then its details page, raw metrics and per-instruction SASS page.
      ncu_profile() {
        local name=$1 kernels=$2 skip=$3
        shift 3
        { echo "\$ ncu --set full -k regex:$kernels --launch-skip $skip --launch-count 1 $*"
          timeout 240 "$ncu" --set full -k "regex:$kernels" --launch-skip "$skip" --launch-count 1 \
            --export "$out/$name" "$@"; echo "exit code $?"; } >"$out/$name.log" 2>&1
        "$ncu" --import "$out/$name.ncu-rep" --page details >"$out/$name.txt" 2>&1
        "$ncu" --import "$out/$name.ncu-rep" --page raw --csv >"$out/$name.csv" 2>&1
        "$ncu" --import "$out/$name.ncu-rep" --page source --csv --print-source sass >"$out/$name.sass.csv" 2>&1
        grep -E 'exit code' "$out/$name.log"
      }
      read -ra ncu_problems <<<"${NCU_PROBLEMS:-${problems[0]}}"
      IFS=';' read -ra ncu_configs <<<"${NCU_CONFIGS:-default}"
      n=0
      for p in "${ncu_problems[@]}"; do
        n=$((n + 1))
        c_index=0
        for c in "${ncu_configs[@]}"; do
          c_index=$((c_index + 1))
          args=(bench --problem "$p" --no-baseline --reps 3)
          [[ $c == default ]] || args+=(--config "$c")
          echo "ncu_p${n}_evotune${c_index}: $p | $c: $(ncu_profile "ncu_p${n}_evotune${c_index}" attention_fwd 3 \
            "$evotune" "${args[@]}")"
        done
        echo "ncu_p${n}_cudnn: $p: $(ncu_profile "ncu_p${n}_cudnn" sdpa 2 "$python" scripts/sdpa_run.py "$p" \
          --backend cudnn)"
      done ;;
    sanitize)
      # The problem-aware default (on the H100: wgmma, 64-row tiles for this small grid) unless
      # $SANITIZE_CONFIG names one.
      problem="${SANITIZE_PROBLEM:-b=1,hq=4,hkv=2,sq=137,skv=201,d=64,causal=1,dtype=bf16}"
      config_args=()
      [[ -n "${SANITIZE_CONFIG:-}" ]] && config_args=(--config "$SANITIZE_CONFIG")
      for tool in memcheck racecheck synccheck; do
        { echo "\$ compute-sanitizer --tool $tool evotune bench --problem $problem ${config_args[*]}"
          timeout 300 compute-sanitizer --tool "$tool" --error-exitcode 9 "$evotune" bench --problem "$problem" \
            "${config_args[@]}" --no-baseline --reps 3
          echo "exit code $?"; } >"$out/sanitize_$tool.txt" 2>&1
        echo "$tool: $(grep -E 'ERROR SUMMARY|exit code' "$out/sanitize_$tool.txt" | tr '\n' ' ')"
      done ;;
    *)
      echo "unknown step '$s'" >&2
      exit 2 ;;
  esac
  echo "[$s: $((SECONDS - start)) s]"
  pack
done
exit $status
