#!/usr/bin/env bash
# probe/call131: at the final code (causal d=64 192-row tiles packed too): every C++ GPU test (the wgmma test
# with a packed causal 192-row default whose last tile idles a warpgroup), and compute-sanitizer memcheck,
# racecheck and synccheck on a packed causal 192-row config with skip_idle over a small GQA shape whose last
# packed tile has 24 rows (two warpgroups idle).
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
SANITIZE_PROBLEM="b=2,hq=8,hkv=2,sq=300,skv=300,d=64,causal=1,dtype=fp16" \
  SANITIZE_CONFIG="mma=wgmma,block_m=192,warps=16,block_n=128,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic,o_store=tma,rescale=lazy,pack_gqa=on,skip_idle=on" \
  timeout 450 scripts/gpu_hopper.sh build-device "$OUT/hopper" machine gpu_tests sanitize
cd "$OUT" && tar czf all.tgz hopper && rm -rf hopper results.tgz
