#!/usr/bin/env bash
# Issue 14's GPU work (ahead-of-time kernels, the PyTorch op, LLaMA end to end), on the device machine, in
# one call:
#   scripts/gpu_production.sh [BUILD_DIR] [OUT_DIR] [STEP...]
# Steps (default: all, in this order):
#   machine      GPU, driver, CPU count, the build's source commit
#   export       `evotune export` of the table's database (evidence/results/h100/llama/table/table.db),
#                re-verified on this GPU -> tuned_attention.h; and whether its CUBINs are byte for byte the
#                ones in the header the build embedded (examples/tuned_attention.h) -> export.txt
#   example      the example program (examples/tuned_attention_example.cpp) on the table's problems, a
#                few near ones and one no entry covers: each runs its kernel from the header's CUBIN with
#                no libnvrtc mapped -> example.txt
#   gpu_tests    every GPU test of the C++ suite -> gpu_tests.txt
#   torch_tests  the PyTorch op against SDPA (tests/python/test_evotune_torch_gpu.py) -> torch_tests.txt
#   llama        a LLaMA-3.1-8B-shaped model, evotune vs SDPA (scripts/llama_e2e.py) -> llama/
# Outputs go under OUT_DIR/production (default $OUT, else gpu-results/); with $OUT set they are packed into
# $OUT/results.tgz after every step.
set -uo pipefail
cd "$(dirname "$0")/.."
output_name=production
default_steps=(machine export example gpu_tests torch_tests llama)
source scripts/gpu_common.sh "$@"
export EVOTUNE_CAPI_LIBRARY="$PWD/$build/deploy/libevotune_capi.so"

# Problems for the example: the table's own (exact), near ones within the lookup contract (nearest), and
# one of a kind no entry has (exit 2).
read -ra example_problems <<<"${EXAMPLE_PROBLEMS:-b=2,hq=32,hkv=8,sq=2048,skv=2048,d=128,causal=1,dtype=bf16 b=2,hq=32,hkv=8,sq=1,skv=2112,d=128,causal=0,dtype=bf16 b=4,hq=16,hkv=16,sq=4096,skv=4096,d=128,causal=0,dtype=fp16 b=8,hq=16,hkv=16,sq=2048,skv=2048,d=64,causal=0,dtype=bf16 b=4,hq=32,hkv=8,sq=2048,skv=2048,d=64,causal=1,dtype=fp16 b=32,hq=32,hkv=8,sq=1,skv=4096,d=128,causal=0,dtype=fp16 b=2,hq=32,hkv=8,sq=1000,skv=1000,d=128,causal=1,dtype=bf16 b=2,hq=32,hkv=8,sq=1,skv=2175,d=128,causal=1,dtype=bf16 b=2,hq=32,hkv=8,sq=512,skv=2048,d=128,causal=1,dtype=bf16 b=4,hq=8,hkv=8,sq=1,skv=1000,d=64,causal=0,dtype=fp16}"

status=0
for s in "${steps[@]}"; do
  start=$SECONDS
  case "$s" in
    machine | gpu_tests)
      common_step "$s" || status=1 ;;
    export)
      cp evidence/results/h100/llama/table/table.db "$out/table.db"
      { echo "\$ (cd $out && evotune export --db table.db --out tuned_attention.h)"
        (evotune_path="$PWD/$evotune"; cd "$out" && "$evotune_path" export --db table.db --out tuned_attention.h)
        echo "exit code $?"
        # The CUBIN arrays, compared with the ones the build embedded (exported on the CPU machine).
        cubins() { awk '/kCubin[0-9]+\[\] = \{/ {f = 1} f {print} /\};/ {f = 0}' "$1"; }
        if [[ -n "$(cubins "$out/tuned_attention.h")" ]] &&
          diff <(cubins "$out/tuned_attention.h") <(cubins examples/tuned_attention.h) >/dev/null; then
          echo "CUBINs: byte-identical to examples/tuned_attention.h"
        else
          echo "CUBINs: DIFFER from examples/tuned_attention.h"
        fi; } >"$out/export.txt" 2>&1
      rm -f "$out/table.db"
      grep -E "exit code|CUBINs|FAIL|re-timed" "$out/export.txt" ;;
    example)
      rm -f "$out/example.txt"
      for p in "${example_problems[@]}"; do
        { echo "\$ tuned_attention_example $p"; "$build/examples/tuned_attention_example" "$p"; echo "exit code $?"; echo; } \
          >>"$out/example.txt" 2>&1
      done
      grep -E "^\\\$|^entry|^kernel|^check|^nvrtc|^time|^search|exit code|no entry" "$out/example.txt" | cut -c1-160 ;;
    torch_tests)
      timeout 300 "$python" tests/python/test_evotune_torch_gpu.py -v >"$out/torch_tests.txt" 2>&1 || status=1
      tail -n 30 "$out/torch_tests.txt" ;;
    llama)
      timeout 400 "$python" scripts/llama_e2e.py --out "$out/llama" ${LLAMA_ARGS:-} >"$out/llama.txt" 2>&1 || status=1
      tail -n 40 "$out/llama.txt" ;;
    *)
      echo "unknown step '$s'" >&2
      exit 2 ;;
  esac
  echo "[$s: $((SECONDS - start)) s]"
  pack
done
exit $status
