#!/usr/bin/env bash
# probe/call122: the narrowed causal d=64 four-CTA bound (854ddbd) held out on ten shapes drawn for it
# (draw_shapes.py, seed 20261131): five whose 192-row tiles are at least four per SM (default: the four-CTA
# config; before: 192-row tiles with pingpong, skip_idle off on all five, given here as an explicit config)
# and five with fewer (default: 128-row tiles, as before). Each: the default, the four-CTA config and the
# 192-row config, beside SDPA, two rounds, each side timed with cuDNN's batch. Then the wgmma GPU test.
set -uo pipefail
export LD_LIBRARY_PATH=/usr/local/cuda/lib64
problems="b=2,hq=40,hkv=5,sq=2483,skv=2483,d=64,causal=1,dtype=fp16 b=3,hq=64,hkv=32,sq=3034,skv=3034,d=64,causal=1,dtype=fp16 b=6,hq=40,hkv=20,sq=2298,skv=2298,d=64,causal=1,dtype=fp16 b=6,hq=12,hkv=6,sq=2452,skv=2452,d=64,causal=1,dtype=fp16 b=1,hq=48,hkv=6,sq=2257,skv=2257,d=64,causal=1,dtype=fp16 b=1,hq=48,hkv=6,sq=840,skv=2521,d=64,causal=1,dtype=bf16 b=2,hq=12,hkv=6,sq=2823,skv=2823,d=64,causal=1,dtype=fp16 b=8,hq=8,hkv=4,sq=1337,skv=2675,d=64,causal=1,dtype=fp16 b=3,hq=4,hkv=2,sq=2657,skv=2657,d=64,causal=1,dtype=fp16 b=1,hq=16,hkv=16,sq=2684,skv=2684,d=64,causal=1,dtype=fp16"
four="mma=wgmma,block_m=64,block_n=64,warps=8,stages=2,overlap=off,pingpong=off,producer_regs=24,min_ctas=4,scheduler=grid,q_buffers=1,o_store=tma,rescale=lazy"
r192="mma=wgmma,block_m=192,block_n=128,warps=16,stages=2,overlap=on,pingpong=on,producer_regs=32,scheduler=dynamic,q_buffers=1,o_store=tma,rescale=lazy,skip_idle=off"
HOPPER_PROBLEMS="$problems" BENCH_ROUNDS=2 HOPPER_CONFIGS="default;$four;$r192" \
  timeout 400 scripts/gpu_hopper.sh build-device "$OUT/p" machine sdpa probe | grep -v "^[12] b="
timeout 150 scripts/gpu_hopper.sh build-device "$OUT/tests" wgmma_tests
cd "$OUT" && tar czf all.tgz p tests && rm -rf p tests results.tgz
