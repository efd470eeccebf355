#!/usr/bin/env bash
# Issue 11's open questions, measured in one call on the device machine (the outputs go under
# OUT_DIR/probe; decode_probe_summary.py reads them):
#   lab/scripts/gpu_decode_probe.sh [BUILD_DIR] [OUT_DIR] [STEP...]
# Steps (default: all, in this order):
#   machine, gpu_tests   as in gpu_decode.sh (scripts/gpu_common.sh)
#   flush   the two large decode rows, timed with each L2 flush (harness/timer.h: read leaves L2 clean,
#           write leaves it dirty): evotune's problem-aware default and $FLUSH_CONFIG_<n> (the last call's
#           winners) by `evotune bench --l2-flush`, and SDPA flash/cuDNN by compare_sdpa.py --l2-flush,
#           interleaved over 2 rounds
#   small   three latency-bound decode shapes (b1 GQA 32:8 skv 2048; MQA b2 hq8 skv 5000; b4 hq64 hkv8):
#           the default and fixed split counts with each way of merging (combine kernel launched as a
#           programmatic dependent launch or plainly, or the tile's last CTA), beside SDPA
#   ncu     kernel durations by Nsight Compute (no clock control) of evotune's default and SDPA cuDNN on
#           the b1 shape: how much of a call is the kernels and how many kernels a call is
set -uo pipefail
cd "$(dirname "$0")/../.."
output_name=probe
default_steps=(machine gpu_tests flush small ncu)
source scripts/gpu_common.sh "$@"

large=(b=32,hq=32,hkv=8,sq=1,skv=4096,d=128,causal=0,dtype=fp16 b=8,hq=32,hkv=8,sq=1,skv=16384,d=128,causal=0,dtype=bf16)
large_best=("${FLUSH_CONFIG_1:-mma=mma_sync,block_m=16,block_n=64,warps=4,stages=3,barrier=full,smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=1,overlap=on,qk_split=2,kv_warps=4,splits=1,combine=kernel,pack_gqa=on}"
            "${FLUSH_CONFIG_2:-mma=mma_sync,block_m=16,block_n=64,warps=4,stages=3,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=1,overlap=on,qk_split=2,kv_warps=4,splits=auto,combine=last_cta,pack_gqa=on}")
small=(b=1,hq=32,hkv=8,sq=1,skv=2048,d=128,causal=0,dtype=fp16 b=2,hq=8,hkv=1,sq=1,skv=5000,d=128,causal=0,dtype=bf16
       b=4,hq=64,hkv=8,sq=1,skv=4096,d=128,causal=0,dtype=bf16)
base="mma=mma_sync,block_m=16,stages=3,barrier=light,smem_layout=swizzled,vec_bytes=16,q_frags=regs,min_ctas=1,overlap=off,qk_split=1,pack_gqa=on,warps=4,kv_warps=4"
# CONFIG|COMBINE_LAUNCH: split counts x the three ways of merging (a combine kernel launched as a
# programmatic dependent launch, or plainly after the attention kernel; the tile's last CTA)
small_configs=()
for s in 8 16 32; do
  small_configs+=("$base,block_n=64,splits=$s,combine=kernel|pdl" "$base,block_n=64,splits=$s,combine=kernel|plain"
                  "$base,block_n=64,splits=$s,combine=last_cta|pdl")
done
small_configs+=("$base,block_n=128,splits=16,combine=kernel|pdl")

# bench PROBLEM FLUSH [CONFIG]: one `evotune bench` record appended to $out/bench.jsonl (step and round
# added), its stderr to bench_stderr.txt.
bench() {
  local args=(--problem "$1" --l2-flush "$2" --no-baseline --reps 50)
  [[ -n "${3:-}" ]] && args+=(--config "$3")
  [[ -n "${4:-}" ]] && args+=(--combine-launch "$4")
  bench_record "$out/bench.jsonl" step="$step" round="$round" -- "${args[@]}" 2>>"$out/bench_stderr.txt" || status=1
}

status=0
for step in "${steps[@]}"; do
  start=$SECONDS
  round=0
  case "$step" in
    machine | gpu_tests)
      common_step "$step" || status=1 ;;
    flush)
      for round in 1 2; do
        for flush in read write; do
          for i in 0 1; do
            bench "${large[$i]}" "$flush"
            bench "${large[$i]}" "$flush" "${large_best[$i]}"
          done
          "$python" scripts/compare_sdpa.py --problem "${large[0]}" --problem "${large[1]}" --backends flash,cudnn \
            --l2-flush "$flush" --csv "$out/sdpa_${flush}_round$round.csv" >"$out/sdpa_${flush}_round$round.txt" 2>&1 || status=1
        done
      done ;;
    small)
      for round in 1 2; do
        for p in "${small[@]}"; do
          bench "$p" read
          for c in "${small_configs[@]}"; do bench "$p" read "${c%|*}" "${c#*|}"; done
        done
      done
      args=()
      for p in "${small[@]}"; do args+=(--problem "$p"); done
      "$python" scripts/compare_sdpa.py "${args[@]}" --backends flash,cudnn --csv "$out/sdpa_small.csv" \
        >"$out/sdpa_small.txt" 2>&1 || status=1 ;;
    ncu)
      ncu=$(command -v ncu || echo /usr/local/cuda/bin/ncu)
      metrics=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,sm__cycles_active.avg
      timeout 180 "$ncu" --clock-control none --metrics "$metrics" -k regex:attention --launch-skip 20 --launch-count 6 \
        "$evotune" bench --problem "${small[0]}" --no-baseline --reps 5 >"$out/ncu_evotune_default.txt" 2>&1 || status=1
      timeout 180 "$ncu" --clock-control none --metrics "$metrics" --launch-skip 20 --launch-count 6 \
        "$python" - "${small[0]}" >"$out/ncu_sdpa_cudnn.txt" 2>&1 <<'PY' || status=1
import sys, torch
from torch.nn.attention import SDPBackend, sdpa_kernel
spec = dict(kv.split("=") for kv in sys.argv[1].split(","))
b, hq, hkv, sq, skv, d = (int(spec[k]) for k in ("b", "hq", "hkv", "sq", "skv", "d"))
dt = torch.float16 if spec["dtype"] == "fp16" else torch.bfloat16
q = torch.randn(b, hq, sq, d, device="cuda", dtype=dt)
k = torch.randn(b, hkv, skv, d, device="cuda", dtype=dt)
v = torch.randn(b, hkv, skv, d, device="cuda", dtype=dt)
with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
    for _ in range(40):
        torch.nn.functional.scaled_dot_product_attention(q, k, v, enable_gqa=True)
torch.cuda.synchronize()
PY
      grep -E "^  [a-zA-Z_].*\(|gpu__time_duration|dram__bytes_read" "$out/ncu_evotune_default.txt" "$out/ncu_sdpa_cudnn.txt" | head -60 ;;
    *) echo "gpu_decode_probe: unknown step '$step'" >&2; exit 2 ;;
  esac
  echo "== $step: $((SECONDS - start)) s"
  pack
done
exit $status
